"""The same walls in configuration: the course's knobs beside Envoy, resilience4j, Polly, Hystrix and
gRPC, as data. Each default is read from its upstream file (:data:`SOURCES`: repository, path, the
commit read, and the line that sets it); :data:`CHECKED` names the rows the course's own mechanism
pins (``tests/course/test_your_own_stack.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

SYSTEMS = ("course", "Envoy", "resilience4j", "Polly", "Hystrix", "gRPC")

#: knob -> system -> what sets it and its default ("-": none there)
TABLE: dict[str, dict[str, str]] = {
    "limit (calls at once)": {
        "course": "Bulkhead(limit, queue): limit",
        "Envoy": "circuit_breakers.thresholds: max_requests 1024 (per priority; max_connections 1024 "
        "bounds connections); overflow counts upstream_rq_pending_overflow",
        "resilience4j": "Bulkhead maxConcurrentCalls 25; ThreadPoolBulkhead: a thread pool",
        "Polly": "v7 Policy.BulkheadAsync(maxParallelization), no default; "
        "v8 AddConcurrencyLimiter(permitLimit)",
        "Hystrix": "thread pool coreSize 10",
        "gRPC": "- (HTTP/2 max_concurrent_streams, set by the server)",
    },
    "waiting places": {
        "course": "Bulkhead(limit, queue): queue, refused at once when full",
        "Envoy": "max_pending_requests 1024 (upstream_rq_pending_overflow)",
        "resilience4j": "maxWaitDuration 0: a full bulkhead refuses at once (BulkheadFullException)",
        "Polly": "v7 maxQueuingActions 0 when not given; v8 queueLimit 0",
        "Hystrix": "maxQueueSize -1: no queue (SynchronousQueue); queueSizeRejectionThreshold 5",
        "gRPC": "-",
    },
    "timeout": {
        "course": "a deadline per call (notebook 07); httpx.Timeout here",
        "Envoy": "route timeout (not a circuit breaker)",
        "resilience4j": "TimeLimiter (a separate module)",
        "Polly": "Timeout strategy (separate)",
        "Hystrix": "execution.isolation.thread.timeoutInMilliseconds",
        "gRPC": "a deadline per call, set by the caller",
    },
    "retry budget": {
        "course": "RetryBudget(ratio): retries under ratio x calls (SRE 10%)",
        "Envoy": "retry_budget: budget_percent 20%, min_retry_concurrency 3 (else max_retries 3 at once)",
        "resilience4j": "- (Retry maxAttempts; no budget)",
        "Polly": "- (Retry strategy; no budget)",
        "Hystrix": "-",
        "gRPC": "retryThrottling: maxTokens (required, > 0), tokenRatio (required, > 0); retries stop "
        "at or below maxTokens / 2",
    },
    "adaptive limit": {
        "course": "AIMD, Vegas, Gradient2, EnvoyGradient (notebook 05)",
        "Envoy": "adaptive_concurrency filter (gradient): min_concurrency 3, max_concurrency_limit 1000, "
        "buffer 25%; in front of a service (its inbound calls), not per dependency; 503 when over",
        "resilience4j": "-",
        "Polly": "-",
        "Hystrix": "-",
        "gRPC": "-",
    },
}


@dataclass(frozen=True)
class Source:
    """Where a default was read: repository, path, the commit read, and what the file says."""

    system: str
    repo: str
    path: str
    commit: str
    says: str


SOURCES = (
    Source("Envoy", "envoyproxy/envoy", "api/envoy/config/cluster/v3/circuit_breaker.proto",
           "01c2c1fadbc61d572c7e02568c98ff001c0bfe8f",
           "max_connections, max_pending_requests, max_requests: 'If not specified, the default is 1024'; "
           "max_retries: 'the default is 3'; RetryBudget budget_percent 'Defaults to 20%', "
           "min_retry_concurrency 'Defaults to 3'; thresholds per RoutingPriority"),
    Source("Envoy", "envoyproxy/envoy", "docs/root/intro/arch_overview/upstream/circuit_breaking.rst",
           "(the stored copy)", "overflow counters upstream_cx_overflow, upstream_rq_pending_overflow, "
           "upstream_rq_retry_overflow; over HTTP/2 one connection carries every request"),
    Source("Envoy", "envoyproxy/envoy",
           "api/envoy/extensions/filters/http/adaptive_concurrency/v3/adaptive_concurrency.proto",
           "149521d8cf7d1a2cbda7f973c5a3d8ffe9798bff",
           "max_concurrency_limit 'Defaults to 1000'; min_concurrency 'Defaults to 3'; buffer 'Defaults to "
           "25%'; concurrency_limit_exceeded_status 'Defaults to 503'"),
    Source("resilience4j", "resilience4j/resilience4j",
           "resilience4j-bulkhead/src/main/java/io/github/resilience4j/bulkhead/BulkheadConfig.java",
           "0331ce025146894b99fe1feaa24f8402d24f5666",
           "DEFAULT_MAX_CONCURRENT_CALLS = 25; DEFAULT_MAX_WAIT_DURATION = Duration.ofSeconds(0)"),
    Source("Polly", "App-vNext/Polly", "src/Polly/Bulkhead/AsyncBulkheadSyntax.cs",
           "10629c68f73009dd7c2019dce5d02fa26867bfe0",
           "BulkheadAsync(int maxParallelization) => BulkheadAsync(maxParallelization, 0, ...): no "
           "waiting places unless given"),
    Source("Polly", "App-vNext/Polly",
           "src/Polly.RateLimiting/RateLimiterResiliencePipelineBuilderExtensions.cs",
           "122cc8916f5d1c5bb20b23de250704e30bf7933e",
           "AddConcurrencyLimiter(int permitLimit, int queueLimit = 0)"),
    Source("Hystrix", "Netflix/Hystrix",
           "hystrix-core/src/main/java/com/netflix/hystrix/HystrixThreadPoolProperties.java",
           "00d8ecb9c87c35e91a2b1a696ea92c8ffb8121ad",
           "default_coreSize = 10; default_maxQueueSize = -1 (SynchronousQueue); "
           "default_queueSizeRejectionThreshold = 5"),
    Source("gRPC", "grpc/grpc-proto", "grpc/service_config/service_config.proto",
           "035241a2510001d124e2037ef4cb4f94a91cf2c4",
           "RetryThrottlingPolicy: max_tokens and token_ratio 'required and must be greater than zero'; "
           "a failure takes 1 token, a success adds token_ratio; no retry at or below max_tokens / 2"),
)  # fmt: skip

#: rows the course's own mechanism pins: (knob, system) -> what the test compares
CHECKED = {
    ("waiting places", "resilience4j"): "maxWaitDuration 0 is Bulkhead(limit, 0): a full one refuses at once",
    ("waiting places", "Polly"): "queue 0 is Bulkhead(limit, 0)",
    (
        "retry budget",
        "Envoy",
    ): "20% and 3 are retries.budgets' ENVOY_BUDGET_PERCENT and _MIN_RETRY_CONCURRENCY",
    ("adaptive limit", "Envoy"): "3, 1000 and 25% are EnvoyGradient's min_limit, max_limit and buffer",
    (
        "limit (calls at once)",
        "resilience4j",
    ): "25 calls at once: Bulkhead(25, 0) lets 25 run and refuses the 26th",
}


def config_table() -> pd.DataFrame:
    """The course's knobs (rows) beside each system's setting and default (columns)."""
    return pd.DataFrame.from_dict(TABLE, orient="index")[list(SYSTEMS)]


def sources_table() -> pd.DataFrame:
    """Where each default was read: the repository, file and commit."""
    return pd.DataFrame(
        [(s.system, s.repo, s.path, s.commit[:12], s.says) for s in SOURCES],
        columns=["system", "repository", "file", "commit", "what it says"],
    )
