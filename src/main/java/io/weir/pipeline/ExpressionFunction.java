package io.weir.pipeline;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Event;
import io.weir.dataflow.OperatorContext;
import io.weir.element.Header;
import io.weir.element.InputPartition;
import io.weir.expr.EvaluationError;
import io.weir.expr.Expression;
import io.weir.expr.Variables;
import io.weir.operators.RecordFunction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A configured expression as a step's {@link RecordFunction}: the record's variables are read only
 * when the expression uses them, and an evaluation error becomes a bad record naming the step and
 * the expression, which sends it to the dead-letter topic.
 */
final class ExpressionFunction implements RecordFunction {
    private final Expression expression;
    private final String step;
    private final boolean condition;

    private ExpressionFunction(Expression expression, String step, boolean condition) {
        this.expression = expression;
        this.step = step;
        this.condition = condition;
    }

    static RecordFunction of(Expression expression, String step) {
        return new ExpressionFunction(expression, step, false);
    }

    /** A condition: its result must be a bool. */
    static RecordFunction condition(Expression expression, String step) {
        return new ExpressionFunction(expression, step, true);
    }

    @Override
    public Object apply(Event event, OperatorContext context) {
        Variables variables = new RecordVariables(event, context);
        try {
            return condition ? expression.test(variables) : expression.evaluate(variables);
        } catch (EvaluationError e) {
            throw new BadRecordException("expression failed: " + e.getMessage(), step, expression.text(), e);
        }
    }

    /** The CEL variables of one record. */
    private record RecordVariables(Event event, OperatorContext context) implements Variables {
        @Override
        public Object value() {
            Object v = event.value();
            return v == null ? NullValue.NULL_VALUE : v;
        }

        @Override
        public Object key() {
            Object k = event.key().value();
            return k == null ? NullValue.NULL_VALUE : k;
        }

        @Override
        public Map<String, String> headers() {
            Map<String, String> headers = new HashMap<>();
            for (Header h : event.headers()) {
                headers.put(h.key(), h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
            }
            return headers;
        }

        @Override
        public long timestamp() {
            return event.timestamp();
        }

        @Override
        public String topic() {
            InputPartition in = context.currentInput();
            return in == null ? "" : in.topic();
        }

        @Override
        public long partition() {
            InputPartition in = context.currentInput();
            return in == null ? -1 : in.partition();
        }

        @Override
        public long offset() {
            return context.currentOffset();
        }
    }
}
