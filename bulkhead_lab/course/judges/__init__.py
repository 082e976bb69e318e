"""The write-it-yourself judges: one module per exercise, each checking a mechanism's contract
(properties over generated scenarios, :mod:`.contract`) and naming the smallest case that breaks it."""
