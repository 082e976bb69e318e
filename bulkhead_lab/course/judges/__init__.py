"""The exercises' judges, one module per exercise: the write-it-yourself ones check a mechanism's contract
(properties over generated scenarios, :mod:`.contract`) and name the smallest case that breaks it; notebook
09's design task and notebook 10's capstone judge a design or a live run in one line."""
