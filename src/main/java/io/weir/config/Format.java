package io.weir.config;

/**
 * How a source decodes or a sink encodes record values: JSON objects, UTF-8 text, or the bytes
 * as they are.
 */
public enum Format {
    JSON,
    STRING,
    BYTES
}
