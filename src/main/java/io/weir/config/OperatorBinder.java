package io.weir.config;

import io.weir.expr.Expression;
import io.weir.expr.ExpressionTypes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Binds the operator steps written with CEL expressions ({@code filter}, {@code map},
 * {@code key-by}, {@code dedupe}) and reports at their positions what the records would refuse:
 * a map replacing the value while also setting fields, a field both set and dropped, fields set
 * on a value that is text, a missing or non-positive {@code within}, fewer than one partition.
 */
final class OperatorBinder {

    private OperatorBinder() {}

    /** {@code - filter: "<CEL bool>"}. */
    static Optional<Step> filter(YamlNode value, String path, StepContext context) {
        return ExpressionBinder.condition(value, path, "a filter", context.types(), context.errors())
                .map(FilterStep::new);
    }

    /** {@code - key-by: "<CEL>"} or {@code - key-by: { by: "<CEL>", partitions: n }}. */
    static Optional<Step> keyBy(YamlNode value, String path, StepContext context) {
        if (value instanceof YamlNode.Mapping mapping) {
            Section section = new Section(path, "pipeline.key-by", mapping, context.errors());
            int mark = section.errors().size();
            Optional<Expression> by = required(section, "by", "the CEL expression giving the new key", context);
            int partitions = section.integer("partitions", 0, 1, Integer.MAX_VALUE);
            section.rejectUnknownKeys();
            OptionalInt count =
                    section.node("partitions").isPresent() ? OptionalInt.of(partitions) : OptionalInt.empty();
            return section.build(mark, () -> new KeyByStep(by.orElseThrow(), count));
        }
        if (value instanceof YamlNode.Scalar scalar && scalar.isNull()) {
            context.errors()
                    .add(
                            value.origin(),
                            path + " must be a CEL expression giving the new key, or a mapping with by and "
                                    + "partitions, was " + value.describe());
            return Optional.empty();
        }
        return ExpressionBinder.expression(value, path, context.types(), context.errors())
                .map(by -> new KeyByStep(by, OptionalInt.empty()));
    }

    /** {@code - dedupe: { by: "<CEL>", within: 10m }}. */
    static Optional<Step> dedupe(Section section, StepContext context) {
        int mark = section.errors().size();
        Optional<Expression> by = required(section, "by", "the CEL expression whose repeats are dropped", context);
        if (section.node("within").isEmpty()) {
            section.error(
                    section.originOf("within"),
                    section.path("within") + " is required: how long a seen record is remembered, such as 10m");
        }
        Duration within = section.duration("within", Duration.ZERO, false);
        section.rejectUnknownKeys();
        return section.build(mark, () -> new DedupeStep(by.orElseThrow(), within));
    }

    /** {@code - map: { set: { field: "<CEL>" }, drop: [field] }} or {@code - map: { value: "<CEL>" }}. */
    static Optional<Step> map(Section section, StepContext context) {
        int mark = section.errors().size();
        ExpressionTypes types = context.types();
        Optional<YamlNode> valueNode = section.node("value");
        Optional<Expression> value = valueNode.flatMap(
                node -> ExpressionBinder.expression(node, section.path("value"), types, section.errors()));
        Map<String, Expression> set = set(section, types);
        List<String> drop = drop(section, set);
        section.rejectUnknownKeys();
        boolean edits = section.node("set").isPresent() || section.node("drop").isPresent();
        if (valueNode.isPresent() && edits) {
            section.error(
                    section.originOf("value"),
                    section.path("value") + " replaces the whole value, so set and drop cannot be given with it; "
                            + "use value alone, or set and drop");
        } else if (valueNode.isEmpty() && !edits) {
            section.error(section.origin(), section.path() + " needs set, drop or value, was none");
        } else if (edits && context.valueIsText()) {
            section.error(
                    section.origin(),
                    section.path() + " sets or drops fields of the records, which needs format json at the source, "
                            + "but pipeline.0.source.format is " + context.sourceFormat()
                            + "; use json, or replace the value with map.value");
        }
        return section.build(mark, () -> new MapStep(set, drop, value));
    }

    private static Map<String, Expression> set(Section section, ExpressionTypes types) {
        Map<String, Expression> set = new LinkedHashMap<>();
        Optional<YamlNode> node = section.node("set");
        if (node.isEmpty()) {
            return set;
        }
        if (!(node.get() instanceof YamlNode.Mapping mapping)) {
            section.error(
                    node.get().origin(),
                    section.path("set") + " must be a mapping of field names to CEL expressions, was "
                            + node.get().describe());
            return set;
        }
        if (mapping.entries().isEmpty()) {
            section.error(mapping.origin(), section.path("set") + " must set at least one field, was empty");
        }
        for (YamlNode.Entry entry : mapping.entries()) {
            String where = section.path("set") + "." + entry.name();
            if (entry.name().isBlank()) {
                section.error(entry.key().origin(), section.path("set") + " has an empty field name");
                continue;
            }
            ExpressionBinder.expression(entry.value(), where, types, section.errors())
                    .ifPresent(expression -> set.put(entry.name(), expression));
        }
        return set;
    }

    private static List<String> drop(Section section, Map<String, Expression> set) {
        List<String> drop = new ArrayList<>();
        Optional<YamlNode> node = section.node("drop");
        if (node.isEmpty()) {
            return drop;
        }
        if (!(node.get() instanceof YamlNode.Sequence list)) {
            section.error(
                    node.get().origin(),
                    section.path("drop") + " must be a list of field names such as [a, b], was "
                            + node.get().describe());
            return drop;
        }
        if (list.items().isEmpty()) {
            section.error(list.origin(), section.path("drop") + " must name at least one field, was empty");
        }
        for (int i = 0; i < list.items().size(); i++) {
            YamlNode item = list.items().get(i);
            String where = section.path("drop") + "." + i;
            if (!(item instanceof YamlNode.Scalar scalar)
                    || scalar.isNull()
                    || scalar.text().isBlank()) {
                section.error(item.origin(), where + " must be a field name, was " + item.describe());
            } else if (set.containsKey(scalar.text())) {
                section.error(
                        item.origin(),
                        where + " drops field " + scalar.text() + ", which " + section.path("set") + " sets; "
                                + "a field is either set or dropped");
            } else if (!drop.contains(scalar.text())) {
                drop.add(scalar.text());
            }
        }
        return drop;
    }

    /** A required expression at {@code key} of a section. */
    private static Optional<Expression> required(Section section, String key, String what, StepContext context) {
        Optional<YamlNode> node = section.node(key);
        if (node.isEmpty()) {
            section.error(section.originOf(key), section.path(key) + " is required: " + what);
            return Optional.empty();
        }
        return ExpressionBinder.expression(node.get(), section.path(key), context.types(), section.errors());
    }
}
