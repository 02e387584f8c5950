package io.weir.config;

import io.weir.expr.Expression;
import io.weir.expr.ExpressionTypes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Binds the {@code pipeline} list to a {@link Pipeline}: each item is a single-key mapping whose
 * key names the step type, bound in file order by that type's binder, which compiles the step's CEL
 * expressions with the types the steps before leave for {@code value} and {@code key} (a string
 * or bytes source value stays typed until a map replaces it; after a key-by the key is dynamic).
 * Then the shape is checked (one source first, a sink or route last, operators between) along
 * with what depends on several steps, such as an aggregate reading fields of a value that is text.
 * A new step type needs a record, a case in {@link #step} and its keys in {@link ConfigShape}.
 */
final class PipelineBinder {

    static final String TOPIC_RULE = SinkBinder.TOPIC_RULE;

    private static final List<String> TERMINALS = List.of("sink", "route");

    /**
     * A pipeline item as bound: its type (null when unusable), position, step and settings as
     * written (null when unusable).
     */
    private record Bound(String type, Origin origin, Optional<Step> step, YamlNode settings) {
        Bound(String type, Origin origin, Optional<Step> step) {
            this(type, origin, step, null);
        }

        /** Where the setting at {@code path} is written, else where the step is. */
        Origin at(String... path) {
            YamlNode node = settings;
            for (String key : path) {
                if (!(node instanceof YamlNode.Mapping m) || m.entry(key).isEmpty()) {
                    return origin;
                }
                node = m.entry(key).get().value();
            }
            return node.origin();
        }
    }

    private PipelineBinder() {}

    /**
     * Binds the pipeline of {@code root}; {@code defaultDeadLetter} is the dead-letter topic when
     * the file configures none, which no sink may write.
     */
    static Optional<Pipeline> bind(Section root, Optional<String> defaultDeadLetter) {
        Optional<YamlNode> node = root.node("pipeline");
        if (node.isEmpty()) {
            root.error(
                    root.originOf("pipeline"),
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
        StepContext context = new StepContext(root.errors(), ExpressionTypes.DYN, Optional.empty(), defaultDeadLetter);
        List<Bound> steps = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            Bound bound = step(list.items().get(i), i, context);
            steps.add(bound);
            context = after(bound, context);
        }
        checkShape(steps, root);
        if (root.errors().grewSince(mark)) {
            return Optional.empty();
        }
        List<OperatorStep> operators = steps.subList(1, steps.size() - 1).stream()
                .map(b -> (OperatorStep) b.step().orElseThrow())
                .toList();
        Section pipeline = new Section("pipeline", "", YamlNode.Mapping.empty(list.origin()), root.errors());
        return pipeline.build(
                mark,
                () -> new Pipeline((SourceStep) steps.get(0).step().orElseThrow(), operators, (TerminalStep)
                        steps.get(steps.size() - 1).step().orElseThrow()));
    }

    /** The context of the step after {@code bound}: what it leaves in {@code value} and {@code key}. */
    private static StepContext after(Bound bound, StepContext context) {
        ExpressionTypes types = context.types();
        if (bound.type() == null) {
            return context;
        }
        return switch (bound.type()) {
            case "source" ->
                bound.step()
                        .map(step -> {
                            SourceStep source = (SourceStep) step;
                            return new StepContext(
                                    context.errors(),
                                    new ExpressionTypes(
                                            StepContext.kind(source.format()), StepContext.kind(source.keyFormat())),
                                    Optional.of(source),
                                    context.defaultDeadLetter());
                        })
                        .orElse(context);
            case "map", "aggregate", "join", "lookup" ->
                context.withTypes(new ExpressionTypes(ExpressionTypes.Kind.DYN, types.key()));
            case "key-by" -> context.withTypes(new ExpressionTypes(types.value(), ExpressionTypes.Kind.DYN));
            case "process" -> context.withTypes(ExpressionTypes.DYN);
            default -> context;
        };
    }

    private static Bound step(YamlNode item, int index, StepContext context) {
        ErrorList errors = context.errors();
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
            return new Bound(null, item.origin(), Optional.empty());
        }
        YamlNode.Entry entry = mapping.entries().get(0);
        String type = entry.name();
        Origin origin = entry.key().origin();
        if (!ConfigShape.STEP_TYPES.contains(type)) {
            errors.add(
                    origin,
                    "unknown step type " + type + " at " + path + ", expected one of " + types
                            + Spelling.hint(type, ConfigShape.STEP_TYPES));
            return new Bound(null, origin, Optional.empty());
        }
        String stepPath = path + "." + type;
        YamlNode value = entry.value();
        switch (type) {
            case "filter":
                return new Bound(type, origin, OperatorBinder.filter(value, stepPath, context));
            case "key-by":
                return new Bound(type, origin, OperatorBinder.keyBy(value, stepPath, context));
            case "route":
                return new Bound(type, origin, SinkBinder.route(value, stepPath, context));
            default:
                break;
        }
        YamlNode.Mapping settings = YamlNode.Mapping.empty(value.origin());
        if (value instanceof YamlNode.Mapping given) {
            settings = given;
        } else if (!(value instanceof YamlNode.Scalar scalar && scalar.isNull())) {
            errors.add(
                    value.origin(),
                    stepPath + " must be a mapping of the step's " + "settings, was " + value.describe());
            return new Bound(type, origin, Optional.empty());
        }
        Section section = new Section(stepPath, "pipeline." + type, settings, errors);
        Optional<Step> step =
                switch (type) {
                    case "source" -> source(section).map(Step.class::cast);
                    case "sink" -> SinkBinder.sink(section, context).map(Step.class::cast);
                    case "map" -> OperatorBinder.map(section, context);
                    case "dedupe" -> OperatorBinder.dedupe(section, context);
                    case "process" -> ProcessBinder.bind(section);
                    case "aggregate" -> aggregate(section, origin, context);
                    case "join" -> addsField(JoinBinder.join(section), section, origin, context);
                    case "lookup" -> addsField(JoinBinder.lookup(section), section, origin, context);
                    default -> throw new IllegalStateException("no binding for step type " + type);
                };
        return new Bound(type, origin, step, settings);
    }

    private static Optional<SourceStep> source(Section section) {
        int mark = section.errors().size();
        Optional<String> topic = section.matching(
                "topic",
                section.requiredString("topic", "the Kafka topic to read"),
                ConfigShape.TOPIC,
                249,
                TOPIC_RULE);
        Format format = section.choice("format", Format.JSON);
        Format keyFormat = section.choice("key-format", Format.STRING);
        ExpressionTypes types = new ExpressionTypes(StepContext.kind(format), StepContext.kind(keyFormat));
        Optional<Expression> timestamp = timestamp(section, types);
        Optional<SourceStep.Watermark> watermark = Optional.empty();
        if (section.node("watermark").isPresent()) {
            Section w = section.section("watermark");
            Duration bound = w.duration("max-out-of-orderness", Duration.ZERO, true);
            Optional<Duration> idleAfter = w.node("idle-after").isPresent()
                    ? Optional.of(w.duration("idle-after", Duration.ofSeconds(1), false))
                    : Optional.empty();
            w.rejectUnknownKeys();
            watermark = Optional.of(new SourceStep.Watermark(bound, idleAfter));
        }
        section.rejectUnknownKeys();
        Optional<SourceStep.Watermark> w = watermark;
        return section.build(mark, () -> new SourceStep(topic.orElseThrow(), format, keyFormat, timestamp, w));
    }

    /** A {@code timestamp:} expression of a section that reads a topic: epoch ms or an RFC 3339 string. */
    static Optional<Expression> timestamp(Section section, ExpressionTypes types) {
        Optional<Expression> timestamp = section.node("timestamp")
                .flatMap(node -> ExpressionBinder.expression(node, section.path("timestamp"), types, section.errors()));
        timestamp
                .filter(t -> !TIMESTAMP_TYPES.contains(t.resultTypeName()))
                .ifPresent(t -> section.error(
                        section.originOf("timestamp"),
                        section.path("timestamp") + " must give epoch milliseconds (an int) or an RFC 3339 "
                                + "string, this gives " + t.resultTypeName()));
        return timestamp;
    }

    private static final List<String> TIMESTAMP_TYPES = List.of("int", "string", "dyn", "any");

    private static Optional<Step> aggregate(Section section, Origin origin, StepContext context) {
        Optional<AggregateStep> aggregate = AggregateBinder.bind(section);
        if (aggregate.isPresent() && aggregate.get().readsFields() && context.valueIsText()) {
            section.error(
                    origin,
                    section.path() + " reads fields of the records, "
                            + "which needs format json at the source, but pipeline.0.source.format is "
                            + context.sourceFormat() + "; use json or only count");
            return Optional.empty();
        }
        return aggregate.map(Step.class::cast);
    }

    /**
     * A join or lookup puts the other record into a field of the value, which a value that is still
     * the source's text has not: refused here, not one dead letter per record.
     */
    private static Optional<Step> addsField(Optional<Step> step, Section section, Origin origin, StepContext context) {
        if (step.isPresent() && context.valueIsText()) {
            String as = step.get() instanceof JoinStep j ? j.as() : ((LookupStep) step.get()).as();
            section.error(
                    origin,
                    section.path() + " adds field " + as + " to the records, which needs format json at the "
                            + "source, but pipeline.0.source.format is " + context.sourceFormat()
                            + "; use json, or make the value an object first with map.value");
            return Optional.empty();
        }
        return step;
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
                && !TERMINALS.contains(last.type())
                && (steps.size() > 1 || last.type().equals("source"))) {
            root.error(
                    last.origin(),
                    "pipeline must end with a sink or a route, the step that writes the results, but its last step "
                            + "pipeline." + (steps.size() - 1) + " is " + last.type());
        }
        String keyBy = null;
        List<String> read = new ArrayList<>();
        first.step()
                .filter(SourceStep.class::isInstance)
                .map(s -> ((SourceStep) s).topic())
                .ifPresent(read::add);
        for (int i = 1; i < steps.size() - 1; i++) {
            Bound step = steps.get(i);
            if ("key-by".equals(step.type())) {
                keyBy = keyBy == null ? "pipeline." + i : keyBy;
            }
            Optional<SideInput> side = step.step().flatMap(PipelineBinder::side);
            if (side.isPresent()) {
                String topic = side.get().topic();
                if (keyBy != null) {
                    root.error(
                            step.origin(),
                            "pipeline." + i + "." + step.type() + " must come before any key-by (" + keyBy
                                    + " re-keys the stream): " + topic + " is read with the source, partition p "
                                    + "with partition p, so both must be keyed by the same key");
                } else if (read.contains(topic)) {
                    root.error(
                            step.origin(),
                            "pipeline." + i + "." + step.type() + " reads " + topic
                                    + ", which this job already reads; each topic may be read by one step");
                }
                read.add(topic);
            }
            if ("source".equals(step.type())) {
                root.error(step.origin(), "pipeline." + i + ": a source may only be the first step");
            } else if (step.type() != null && TERMINALS.contains(step.type())) {
                root.error(step.origin(), "pipeline." + i + ": a " + step.type() + " may only be the last step");
            }
        }
        List<String> own = ownTopics(root, steps);
        if (last.step().orElse(null) instanceof TerminalStep terminal) {
            for (SinkStep sink : terminal.sinks()) {
                if (read.indexOf(sink.topic()) > 0) { // the source's own check is the sink's
                    root.error(
                            last.origin(),
                            "pipeline." + (steps.size() - 1) + ": the job writes " + sink.topic()
                                    + ", which a join or lookup of the job reads; write to another topic");
                } else if (own.contains(sink.topic())) {
                    root.error(
                            last.origin(),
                            "pipeline." + (steps.size() - 1) + ": the job writes " + sink.topic()
                                    + ", a topic Weir keeps for this job itself; write to another topic");
                }
            }
        }
        // A late record written to a topic the job reads would be read again, be late again, and
        // be written again, once per checkpoint, for ever.
        for (int i = 1; i < steps.size() - 1; i++) {
            Bound step = steps.get(i);
            if (step.step().orElse(null) instanceof AggregateStep a
                    && a.lateTopic().isPresent()) {
                String late = a.lateTopic().get();
                if (read.contains(late) || own.contains(late)) {
                    root.error(
                            step.at("late", "topic"),
                            "pipeline." + i + ".aggregate.late.topic must differ from " + late + ", which the job "
                                    + (read.contains(late) ? "reads" : "keeps for itself")
                                    + ": its late records would come back; write them to another topic");
                }
            }
        }
    }

    /** The topics Weir keeps for the job: its repartition, checkpoint and snapshot topics. */
    private static List<String> ownTopics(Section root, List<Bound> steps) {
        if (!(root.node("application").orElse(null) instanceof YamlNode.Scalar app) || app.isNull()) {
            return List.of(); // reported where the application is bound
        }
        return ownTopics(app.text(), (int)
                steps.stream().filter(s -> "key-by".equals(s.type())).count());
    }

    /** The topics Weir keeps for job {@code application} with {@code keyBys} key-by steps. */
    static List<String> ownTopics(String application, int keyBys) {
        List<String> own = new ArrayList<>(List.of(application + "-checkpoints", application + "-snapshots"));
        for (int n = 1; n <= keyBys; n++) {
            own.add(KeyByStep.topic(application, n));
        }
        return own;
    }

    private static Optional<SideInput> side(Step step) {
        if (step instanceof JoinStep join) {
            return Optional.of(join.with());
        } else if (step instanceof LookupStep lookup) {
            return Optional.of(lookup.table());
        }
        return Optional.empty();
    }

    /** The topics the pipeline reads and writes, for checks against other topics. */
    static List<String> topics(Pipeline pipeline) {
        return pipeline.topics();
    }
}
