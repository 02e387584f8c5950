/**
 * Weir's edge to Kafka: the {@link io.weir.kafka.SourceLoop} that owns the consumer and injects
 * barriers, the {@link io.weir.kafka.ProducerPool} of transactional producers (one per open
 * epoch), the checkpoint and snapshot topics, topic administration, and the embedded broker.
 */
package io.weir.kafka;
