/**
 * The composition root: the only place that creates threads, reads the wall clock and wires
 * config, Kafka, tasks, coordinator and snapshot stores together into a running
 * {@link io.weir.app.Instance}.
 */
package io.weir.app;
