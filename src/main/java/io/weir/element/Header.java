package io.weir.element;

/** A record header, independent of the Kafka client's type so the core does not import Kafka. */
public record Header(String key, byte[] value) {}
