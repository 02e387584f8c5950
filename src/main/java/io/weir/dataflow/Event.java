package io.weir.dataflow;

/**
 * A decoded record between operators: its key bytes (the state key), its value (a format-specific
 * object, e.g. a JSON tree) and its event timestamp.
 */
public record Event(byte[] key, Object value, long timestamp) {}
