//! The blocks people put on the canvas. One block, one file: each file opens
//! with what the block guarantees.

pub mod concurrency_limiter;
pub mod consumer;
pub mod credit;
pub mod dispatcher;
pub mod link;
pub mod producer;
pub mod product_limiter;
pub mod queue;
pub mod rate_limiter;
pub mod resource_pool;
pub mod router;
pub mod window;

pub use concurrency_limiter::{ConcurrencyLimiter, ConcurrencyLimiterSpec};
pub use consumer::{Consumer, ConsumerSpec};
pub use credit::{Credit, CreditScope, CreditSpec};
pub use dispatcher::{Dispatcher, DispatcherSpec};
pub use link::{Link, LinkSpec};
pub use producer::{Arrivals, ServiceTimes, TraceKeys, Backpressure, Backoff, Budget, Jitter, MessageClass, OnGiveUp, OnRefused, Producer, ProducerSpec, Retries, RetryOn};
pub use product_limiter::{
    Balance, Bucket, EnvoyCircuitBreakerSpec, EnvoyLocalRateLimitSpec, GoCall, GoRateSpec, HaproxyReqRateSpec, HaproxyServerSpec, NginxLimitConnSpec, NginxLimitReqSpec, Per,
    AdaptiveCourse, EnvoyAdaptiveConcurrencySpec, NetflixAimdSpec, NetflixGradient2Spec, NetflixVegasSpec, NetflixWindowSpec, ProductLimiter, ProductLimiterSpec, Protocol, TowerLayer, TowerSpec,
    AfterWait, Resilience4jCircuitBreakerSpec, SlidingWindowType,
};
pub use queue::{Limits, OnFull, Queue, QueueSpec, Reaction, Reactions};
pub use rate_limiter::{OnExcess, RateLimiter, RateLimiterSpec, RateRule, RateUnit, Scheme};
pub use resource_pool::{ResourcePool, ResourcePoolSpec};
pub use router::{Router, RouterSpec};
pub use window::{OpensOn, Scope, Window, WindowSpec};
