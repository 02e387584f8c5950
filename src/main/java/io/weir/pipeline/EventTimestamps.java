package io.weir.pipeline;

import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Event;
import io.weir.dataflow.OperatorContext;
import io.weir.dataflow.TimestampAssigner;
import io.weir.expr.Expression;
import io.weir.operators.Json;
import io.weir.operators.RecordFunction;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * The source's {@code timestamp:} expression as a {@link TimestampAssigner}: an int result is epoch
 * milliseconds, a string result an RFC 3339 date-time ({@code 2024-05-01T12:00:00.250Z}); anything
 * else, or a failed evaluation, sends the record to the dead-letter topic.
 */
final class EventTimestamps implements TimestampAssigner {
    static final String STEP = "pipeline.0.source.timestamp";

    private final RecordFunction expression;
    private final String text;
    private final String step;

    EventTimestamps(Expression expression) {
        this(expression, STEP);
    }

    /** @param step the path of the expression in the file, named in dead letters */
    EventTimestamps(Expression expression, String step) {
        this.expression = ExpressionFunction.of(expression, step);
        this.text = expression.text();
        this.step = step;
    }

    @Override
    public long timestamp(Event event, OperatorContext context) {
        long ms = parse(expression.apply(event, context));
        if (ms < 0) {
            // Kafka records carry no time before 1970: a sink would write the broker's time instead.
            throw new BadRecordException(
                    "timestamp " + ms + " is before 1970 (negative), which a Kafka record cannot carry",
                    step,
                    text,
                    null);
        }
        return ms;
    }

    private long parse(Object v) {
        if (v instanceof Long ms) {
            return ms;
        }
        if (v instanceof String s) {
            try {
                return OffsetDateTime.parse(s).toInstant().toEpochMilli();
            } catch (DateTimeParseException | ArithmeticException e) {
                throw new BadRecordException(
                        "timestamp '" + s + "' is not an RFC 3339 date-time such as 2024-05-01T12:00:00Z",
                        step,
                        text,
                        e);
            }
        }
        throw new BadRecordException(
                "timestamp must be epoch milliseconds (an int) or an RFC 3339 string, was " + Json.describe(v),
                step,
                text,
                null);
    }
}
