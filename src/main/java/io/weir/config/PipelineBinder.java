package io.weir.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Binds the {@code pipeline} list to a {@link Pipeline}: each item is a single-key mapping whose
 * key names the step type, bound by that type's method ({@link AggregateBinder} for aggregates).
 * Then the shape is checked (one source first, a sink last, operators between) along with what
 * depends on several steps, such as an aggregate reading fields of a source that is not JSON.
 * A new step type needs a record, a case in {@link #step} and its keys in {@link ConfigShape}.
 */
final class PipelineBinder {

    static final String TOPIC_RULE = "a Kafka topic name (1 to 249 characters of a-z, A-Z, 0-9, '.', '_' and '-')";

    /** A pipeline item as bound: its type (null when unusable), position, section and step. */
    private record Bound(String type, Origin origin, Section section, Optional<Step> step) {}

    private PipelineBinder() {}

    static Optional<Pipeline> bind(Section root) {
        Optional<YamlNode> node = root.node("pipeline");
        if (node.isEmpty()) {
            root.error(
                    root.origin(),
                    "pipeline is required: a list of steps that starts with a source and ends with a sink");
            return Optional.empty();
        }
        if (!(node.get() instanceof YamlNode.Sequence list)) {
            root.error(
                    node.get().origin(),
                    "pipeline must be a list of steps (- source: ..., " + "- sink: ...), was "
                            + node.get().describe());
            return Optional.empty();
        }
        if (list.items().isEmpty()) {
            root.error(list.origin(), "pipeline must have at least a source and a sink, was empty");
            return Optional.empty();
        }
        int mark = root.errors().size();
        List<Bound> steps = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            steps.add(step(list.items().get(i), i, root.errors()));
        }
        checkShape(steps, root);
        checkAcrossSteps(steps, root);
        if (root.errors().grewSince(mark)) {
            return Optional.empty();
        }
        List<OperatorStep> operators = steps.subList(1, steps.size() - 1).stream()
                .map(b -> (OperatorStep) b.step().orElseThrow())
                .toList();
        Section pipeline = new Section("pipeline", "", YamlNode.Mapping.empty(list.origin()), root.errors());
        return pipeline.build(
                mark,
                () -> new Pipeline((SourceStep) steps.get(0).step().orElseThrow(), operators, (SinkStep)
                        steps.get(steps.size() - 1).step().orElseThrow()));
    }

    private static Bound step(YamlNode item, int index, ErrorList errors) {
        String path = "pipeline." + index;
        String types = String.join(", ", ConfigShape.STEP_TYPES);
        if (!(item instanceof YamlNode.Mapping mapping) || mapping.entries().size() != 1) {
            String seen = item.describe();
            String advice = "";
            if (item instanceof YamlNode.Mapping mapping && !mapping.entries().isEmpty()) {
                List<String> keys =
                        mapping.entries().stream().map(YamlNode.Entry::name).toList();
                seen = "a mapping with keys " + String.join(", ", keys);
                if (mapping.entries().get(0).value() instanceof YamlNode.Scalar first && first.isNull()) {
                    advice = "; indent the step's settings under " + keys.get(0) + ":";
                }
            }
            errors.add(
                    item.origin(),
                    path + " must be a mapping with one key naming the step type (" + types + "), was " + seen
                            + advice);
            return new Bound(null, item.origin(), null, Optional.empty());
        }
        YamlNode.Entry entry = mapping.entries().get(0);
        String type = entry.name();
        Origin origin = entry.key().origin();
        if (!ConfigShape.STEP_TYPES.contains(type)) {
            errors.add(
                    origin,
                    "unknown step type " + type + " at " + path + ", expected one of " + types
                            + Spelling.hint(type, ConfigShape.STEP_TYPES));
            return new Bound(null, origin, null, Optional.empty());
        }
        YamlNode.Mapping settings = YamlNode.Mapping.empty(entry.value().origin());
        if (entry.value() instanceof YamlNode.Mapping given) {
            settings = given;
        } else if (!(entry.value() instanceof YamlNode.Scalar scalar && scalar.isNull())) {
            errors.add(
                    entry.value().origin(),
                    path + "." + type + " must be a mapping of the step's " + "settings, was "
                            + entry.value().describe());
            return new Bound(type, origin, null, Optional.empty());
        }
        Section section = new Section(path + "." + type, "pipeline." + type, settings, errors);
        Optional<Step> step =
                switch (type) {
                    case "source" -> endpoint(section, "read").map(e -> new SourceStep(e.topic(), e.format()));
                    case "sink" -> endpoint(section, "write").map(e -> new SinkStep(e.topic(), e.format()));
                    case "aggregate" -> AggregateBinder.bind(section).map(Step.class::cast);
                    default -> throw new IllegalStateException("no binding for step type " + type);
                };
        return new Bound(type, origin, section, step);
    }

    /** What sources and sinks share: a topic and a format. */
    private record Endpoint(String topic, Format format) {}

    private static Optional<Endpoint> endpoint(Section section, String verb) {
        int mark = section.errors().size();
        Optional<String> topic = section.matching(
                "topic",
                section.requiredString("topic", "the Kafka topic to " + verb),
                ConfigShape.TOPIC,
                249,
                TOPIC_RULE);
        Format format = section.choice("format", Format.JSON);
        section.rejectUnknownKeys();
        return section.build(mark, () -> new Endpoint(topic.orElseThrow(), format));
    }

    private static void checkShape(List<Bound> steps, Section root) {
        Bound first = steps.get(0);
        if (first.type() != null && !first.type().equals("source")) {
            root.error(
                    first.origin(),
                    "pipeline.0 must be a source, the step that reads the input, " + "was " + first.type());
        }
        Bound last = steps.get(steps.size() - 1);
        if (last.type() != null
                && !last.type().equals("sink")
                && (steps.size() > 1 || last.type().equals("source"))) {
            root.error(
                    last.origin(),
                    "pipeline must end with a sink, the step that writes the " + "results, but its last step pipeline."
                            + (steps.size() - 1) + " is " + last.type());
        }
        for (int i = 1; i < steps.size() - 1; i++) {
            Bound step = steps.get(i);
            if ("source".equals(step.type())) {
                root.error(step.origin(), "pipeline." + i + ": a source may only be the first step");
            } else if ("sink".equals(step.type())) {
                root.error(step.origin(), "pipeline." + i + ": a sink may only be the last step");
            }
        }
    }

    private static void checkAcrossSteps(List<Bound> steps, Section root) {
        Bound first = steps.get(0);
        if (!(first.step().orElse(null) instanceof SourceStep source)) {
            return;
        }
        for (Bound bound : steps) {
            if (bound.step().orElse(null) instanceof AggregateStep aggregate
                    && aggregate.readsFields()
                    && source.format() != Format.JSON) {
                root.error(
                        bound.origin(),
                        bound.section().path() + " reads fields of the records, "
                                + "which needs format json at the source, but pipeline.0.source.format is "
                                + ConfigShape.nameOf(source.format()) + "; use json or only count");
            }
            if (bound.step().orElse(null) instanceof SinkStep sink
                    && sink.topic().equals(source.topic())) {
                root.error(
                        bound.section().originOf("topic"),
                        bound.section().path("topic")
                                + " must differ from the source topic " + source.topic()
                                + ", or the job would read its own results, was " + sink.topic());
            }
        }
    }

    /** The topics the pipeline reads and writes, for checks against other topics. */
    static List<String> topics(Pipeline pipeline) {
        return List.of(pipeline.source().topic(), pipeline.sink().topic());
    }
}
