package io.weir.config;

import io.weir.expr.Expression;
import io.weir.expr.ExpressionTypes;
import java.time.Duration;
import java.util.Optional;

/** Binds the two steps that read a second topic: {@code join} and {@code lookup}. */
final class JoinBinder {
    private JoinBinder() {}

    /** {@code join: { with: { topic, format, key-format, timestamp }, within, type, as }}. */
    static Optional<Step> join(Section section) {
        int mark = section.errors().size();
        Optional<SideInput> with = side(section, "with", "the other stream's topic, such as { topic: payments }");
        if (section.node("within").isEmpty()) {
            section.error(
                    section.originOf("within"),
                    section.path("within") + " is required: how far apart in event time two records may be "
                            + "to join, such as 5m");
        }
        Duration within = section.duration("within", Duration.ZERO, true);
        JoinStep.JoinType type = section.choice("type", JoinStep.JoinType.INNER);
        Optional<String> as = as(section);
        section.rejectUnknownKeys();
        return section.build(mark, () -> new JoinStep(with.orElseThrow(), within, type, as.orElseThrow()));
    }

    /** {@code lookup: { table: { topic, format, key-format, timestamp }, as, type }}. */
    static Optional<Step> lookup(Section section) {
        int mark = section.errors().size();
        Optional<SideInput> table = side(
                section, "table", "the table's topic (compacted, keyed like the source), such as { topic: users }");
        Optional<String> as = as(section);
        JoinStep.JoinType type = section.choice("type", JoinStep.JoinType.INNER);
        section.rejectUnknownKeys();
        return section.build(mark, () -> new LookupStep(table.orElseThrow(), as.orElseThrow(), type));
    }

    private static Optional<String> as(Section section) {
        Optional<String> as = section.requiredString("as", "the field of the output that holds the other record");
        if (as.isPresent() && as.get().isBlank()) {
            section.error(section.originOf("as"), section.path("as") + " must name a field, was empty");
            return Optional.empty();
        }
        return as;
    }

    private static Optional<SideInput> side(Section parent, String key, String what) {
        if (parent.node(key).isEmpty()) {
            parent.error(parent.originOf(key), parent.path(key) + " is required: " + what);
            return Optional.empty();
        }
        Section section = parent.section(key);
        int mark = section.errors().size();
        Optional<String> topic = section.matching(
                "topic",
                section.requiredString("topic", "the Kafka topic to read"),
                ConfigShape.TOPIC,
                249,
                PipelineBinder.TOPIC_RULE);
        Format format = section.choice("format", Format.JSON);
        Format keyFormat = section.choice("key-format", Format.STRING);
        Optional<Expression> timestamp = PipelineBinder.timestamp(
                section, new ExpressionTypes(StepContext.kind(format), StepContext.kind(keyFormat)));
        section.rejectUnknownKeys();
        return section.build(mark, () -> new SideInput(topic.orElseThrow(), format, keyFormat, timestamp));
    }
}
