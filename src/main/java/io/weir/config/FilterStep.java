package io.weir.config;

import io.weir.expr.Expression;
import java.util.Objects;

/** Keeps the records for which a CEL condition gives true and drops the others. */
public record FilterStep(Expression condition) implements OperatorStep {

    public FilterStep {
        Objects.requireNonNull(condition, "condition");
        if (!condition.mayBeBool()) {
            throw new IllegalArgumentException(
                    "a filter must give a bool, " + condition.text() + " gives " + condition.resultTypeName());
        }
    }

    @Override
    public String type() {
        return "filter";
    }
}
