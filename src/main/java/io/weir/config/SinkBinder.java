package io.weir.config;

import io.weir.expr.Expression;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Binds the steps that write results: a {@code sink}, and a {@code route} whose cases each hold a
 * sink with the same keys. Every sink's topic must be a valid name that differs from the source
 * topic (the job would read its own results) and from the default dead-letter topic; a route's
 * {@code default} case is optional, at most one, and last.
 */
final class SinkBinder {

    static final String TOPIC_RULE =
            "a Kafka topic name (1 to 249 characters of a-z, A-Z, 0-9, '.', '_' and '-', not . or ..)";

    private SinkBinder() {}

    static Optional<SinkStep> sink(Section section, StepContext context) {
        int mark = section.errors().size();
        Optional<String> topic = section.matching(
                "topic",
                section.requiredString("topic", "the Kafka topic to write"),
                ConfigShape.TOPIC,
                249,
                TOPIC_RULE);
        Format format = section.choice("format", Format.JSON);
        Format keyFormat = section.choice("key-format", Format.STRING);
        Optional<Expression> key = Optional.empty();
        Optional<YamlNode> keyNode = section.node("key");
        if (keyNode.isPresent()) {
            key = ExpressionBinder.expression(keyNode.get(), section.path("key"), context.types(), section.errors());
        }
        section.rejectUnknownKeys();
        topic.ifPresent(t -> checkTopic(section, t, context));
        Optional<Expression> outputKey = key;
        return section.build(mark, () -> new SinkStep(topic.orElseThrow(), format, keyFormat, outputKey));
    }

    private static void checkTopic(Section section, String topic, StepContext context) {
        if (context.source().isPresent() && context.source().get().topic().equals(topic)) {
            section.error(
                    section.originOf("topic"),
                    section.path("topic") + " must differ from the source topic " + topic
                            + ", or the job would read its own results, was " + topic);
        } else if (context.defaultDeadLetter().isPresent()
                && context.defaultDeadLetter().get().equals(topic)) {
            section.error(
                    section.originOf("topic"),
                    section.path("topic") + " must differ from the dead-letter topic " + topic
                            + " (the default dead-letter.topic), or dead letters would mix with results, was "
                            + topic);
        }
    }

    /** A route: a list of {@code when}/{@code sink} cases and an optional last {@code default}. */
    static Optional<Step> route(YamlNode value, String path, StepContext context) {
        ErrorList errors = context.errors();
        if (!(value instanceof YamlNode.Sequence list) || list.items().isEmpty()) {
            errors.add(
                    value.origin(),
                    path + " must be a list of cases (- when: <CEL bool>, sink: {...}) with an optional last "
                            + "- default: {...}, was "
                            + (value instanceof YamlNode.Sequence ? "empty" : value.describe()));
            return Optional.empty();
        }
        int mark = errors.size();
        List<RouteStep.RouteCase> cases = new ArrayList<>();
        Optional<SinkStep> otherwise = Optional.empty();
        String defaultPath = null;
        for (int i = 0; i < list.items().size(); i++) {
            YamlNode item = list.items().get(i);
            String where = path + "." + i;
            if (!(item instanceof YamlNode.Mapping mapping)) {
                errors.add(
                        item.origin(),
                        where + " must be a mapping with when and sink, or with default, was " + item.describe());
                continue;
            }
            Section section = new Section(where, "pipeline.route", mapping, errors);
            section.rejectUnknownKeys();
            if (defaultPath != null) {
                errors.add(
                        item.origin(),
                        where + " comes after the default case " + defaultPath
                                + ", so no record would reach it; the default must be the last case");
            }
            if (section.node("default").isPresent()) {
                if (section.node("when").isPresent() || section.node("sink").isPresent()) {
                    errors.add(
                            section.originOf("default"),
                            section.path("default") + " cannot be given with when or sink: a default case has only "
                                    + "default, the sink for records no case matched");
                }
                if (defaultPath == null) {
                    defaultPath = section.path("default");
                }
                otherwise = sinkAt(section, "default", context);
                continue;
            }
            if (section.node("when").isEmpty()) {
                section.error(
                        section.originOf("when"),
                        section.path("when") + " is required: the condition (a CEL bool) for records to go to this "
                                + "case's sink");
            }
            if (section.node("sink").isEmpty()) {
                section.error(
                        section.originOf("sink"),
                        section.path("sink") + " is required: where the records for which when is true are written");
            }
            Optional<Expression> when = section.node("when")
                    .flatMap(node -> ExpressionBinder.condition(
                            node, section.path("when"), "a route's when", context.types(), errors));
            Optional<SinkStep> sink = sinkAt(section, "sink", context);
            if (when.isPresent() && sink.isPresent()) {
                cases.add(new RouteStep.RouteCase(when.get(), sink.get()));
            }
        }
        if (!errors.grewSince(mark) && cases.isEmpty()) {
            errors.add(
                    list.origin(),
                    path + " needs at least one case with when and sink, was only a default; use a sink instead");
        }
        if (errors.grewSince(mark)) {
            return Optional.empty();
        }
        return Optional.of(new RouteStep(cases, otherwise));
    }

    private static Optional<SinkStep> sinkAt(Section caseSection, String key, StepContext context) {
        Optional<YamlNode> node = caseSection.node(key);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        if (!(node.get() instanceof YamlNode.Mapping mapping)) {
            caseSection.error(
                    node.get().origin(),
                    caseSection.path(key) + " must be a mapping of sink settings ({ topic: ..., format: ... }), was "
                            + node.get().describe());
            return Optional.empty();
        }
        return sink(new Section(caseSection.path(key), "pipeline.sink", mapping, caseSection.errors()), context);
    }
}
