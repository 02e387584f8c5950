package io.weir.expr;

import java.util.Map;

/**
 * The record an expression is evaluated against, implemented by the runtime once per record.
 * Each method backs one CEL variable of the same name and is only called when the expression
 * reads that variable, so an implementation may build values such as the headers map lazily.
 * {@link #value()} and {@link #key()} follow the value model of this package and are never Java
 * {@code null} (a missing key is {@code NullValue.NULL_VALUE}).
 */
public interface Variables {

    /** The record value: decoded JSON, a {@code String} or a {@code byte[]}. */
    Object value();

    /** The record key, in the same model as {@link #value()}. */
    Object key();

    /** The record headers with their values as UTF-8 text; the last wins for a repeated name. */
    Map<String, String> headers();

    /** The record timestamp in milliseconds since the epoch. */
    long timestamp();

    String topic();

    long partition();

    long offset();
}
