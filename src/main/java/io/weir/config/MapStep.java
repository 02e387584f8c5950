package io.weir.config;

import io.weir.expr.Expression;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Changes record values: either sets top-level fields of a JSON object value to the results of
 * CEL expressions ({@code set}, in file order, each seeing the value as it was before the step)
 * and removes fields ({@code drop}), or replaces the whole value with an expression's result
 * ({@code value}). Field names are taken as they are (a dot is part of the name). At least one of
 * them is given, {@code value} only alone, and no field is both set and dropped.
 */
public record MapStep(Map<String, Expression> set, List<String> drop, Optional<Expression> value)
        implements OperatorStep {

    public MapStep {
        set = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(set, "set")));
        drop = List.copyOf(drop);
        Objects.requireNonNull(value, "value");
        if (value.isPresent() && (!set.isEmpty() || !drop.isEmpty())) {
            throw new IllegalArgumentException("a map replacing the value cannot also set or drop fields");
        }
        if (value.isEmpty() && set.isEmpty() && drop.isEmpty()) {
            throw new IllegalArgumentException("a map needs set, drop or value");
        }
        for (String field : drop) {
            if (field.isBlank()) {
                throw new IllegalArgumentException("field names must not be empty");
            }
            if (set.containsKey(field)) {
                throw new IllegalArgumentException("field " + field + " is both set and dropped");
            }
        }
        if (set.keySet().stream().anyMatch(String::isBlank)) {
            throw new IllegalArgumentException("field names must not be empty");
        }
    }

    /** A map that replaces the value. */
    public static MapStep replacing(Expression value) {
        return new MapStep(Map.of(), List.of(), Optional.of(value));
    }

    /** Whether the step replaces the whole value rather than editing fields. */
    public boolean replacesValue() {
        return value.isPresent();
    }

    @Override
    public String type() {
        return "map";
    }
}
