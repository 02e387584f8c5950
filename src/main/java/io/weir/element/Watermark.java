package io.weir.element;

/** Event-time progress of one channel: no later record of it has a timestamp below {@code timestamp}. */
public record Watermark(long timestamp) implements Element {}
