/**
 * CEL expressions over records: {@link io.weir.expr.Expression} compiles a Common Expression
 * Language text once, checking it against the record variables ({@code value}, {@code key},
 * {@code headers}, {@code timestamp}, {@code topic}, {@code partition}, {@code offset}), and
 * evaluates it per record against {@link io.weir.expr.Variables}.
 *
 * <p>Values follow one model, shared with the runtime: a decoded JSON value is a
 * {@code Map<String, Object>} (insertion order), {@code List<Object>}, {@code String}, {@code Long}
 * (integers), {@code Double}, {@code Boolean} or {@code NullValue.NULL_VALUE} (JSON null; Java
 * {@code null} never appears); a {@code string} value is a {@code String} and a {@code bytes}
 * value a {@code byte[]}. Results are normalised back into this model.
 */
package io.weir.expr;
