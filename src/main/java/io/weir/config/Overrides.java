package io.weir.config;

import io.weir.logging.Secrets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Applies {@code --set a.b.c=value} overrides to the parsed tree before binding, creating
 * mappings on the way as needed. A path step into a list is an index from 0
 * ({@code pipeline.1.aggregate.emit}); an index one past the end appends. Inside
 * {@code kafka.properties} and the other property maps, the rest of the path is one property
 * name, dots included. A value starting with {@code {} or {@code [} is read as YAML flow; any
 * other value is taken as text. Values keep {@code --set a.b.c} as origin, so that errors in them
 * are reported as {@code --set a.b.c: ...}.
 */
final class Overrides {

    private final String file;
    private final ErrorList errors;

    /** How errors name each override's value, in the order given, for ordering errors. */
    static List<String> sources(List<String> overrides) {
        return overrides.stream().map(o -> "--set " + key(o)).toList();
    }

    private static String key(String override) {
        int equals = override.indexOf('=');
        return equals < 0 ? override.strip() : override.substring(0, equals).strip();
    }

    Overrides(String file, ErrorList errors) {
        this.file = file;
        this.errors = errors;
    }

    /** Applies every override to {@code root} in order; a root that is absent starts empty. */
    YamlNode apply(YamlNode root, List<String> overrides) {
        YamlNode result = root;
        for (String override : overrides) {
            int equals = override.indexOf('=');
            String key = key(override);
            Origin origin = Origin.of("--set " + key);
            if (equals < 0 || key.isEmpty() || key.startsWith(".") || key.endsWith(".") || key.contains("..")) {
                errors.add(
                        origin,
                        "expected key=value with a dotted key such as processing.threads=4, " + "was "
                                + (equals >= 0 && Secrets.isSecret(key) ? key + "=" + Secrets.MASK : override));
                continue;
            }
            YamlNode value = value(key, override.substring(equals + 1), origin);
            if (value == null) {
                continue;
            }
            if (result == null) {
                result = YamlNode.Mapping.empty(new Origin(file, 1, 1));
            }
            try {
                result = set(result, Arrays.asList(key.split("\\.")), 0, value);
            } catch (PathException e) {
                errors.add(origin, e.getMessage());
            }
        }
        return result;
    }

    private YamlNode value(String key, String text, Origin origin) {
        String trimmed = text.strip();
        if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) {
            return new YamlNode.Scalar(text, text.isEmpty(), origin);
        }
        ErrorList parseErrors = new ErrorList();
        YamlNode parsed = YamlParser.parse(origin.file(), trimmed, parseErrors).orElse(null);
        if (parsed == null || !parseErrors.isEmpty()) {
            errors.add(
                    origin,
                    "the value " + Secrets.printable(key, trimmed) + " is not valid YAML flow, "
                            + "expected a mapping such as {a: b} or a list such as [a, b]");
            return null;
        }
        return relocate(parsed, origin);
    }

    private static YamlNode relocate(YamlNode node, Origin origin) {
        if (node instanceof YamlNode.Scalar scalar) {
            return new YamlNode.Scalar(scalar.text(), scalar.isNull(), origin);
        } else if (node instanceof YamlNode.Mapping mapping) {
            List<YamlNode.Entry> entries = new ArrayList<>();
            mapping.entries()
                    .forEach(e -> entries.add(new YamlNode.Entry(
                            (YamlNode.Scalar) relocate(e.key(), origin), relocate(e.value(), origin))));
            return new YamlNode.Mapping(entries, origin);
        } else {
            List<YamlNode> items = new ArrayList<>();
            ((YamlNode.Sequence) node).items().forEach(item -> items.add(relocate(item, origin)));
            return new YamlNode.Sequence(items, origin);
        }
    }

    private YamlNode set(YamlNode node, List<String> path, int index, YamlNode value) {
        if (index == path.size()) {
            return value;
        }
        String here = String.join(".", path.subList(0, index));
        String shown = index == 0 ? "the top level" : here;
        if (node == null || node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
            boolean index0 = path.get(index).matches("\\d+") && !ConfigShape.PROPERTY_MAPS.contains(here);
            node = index0 ? new YamlNode.Sequence(List.of(), value.origin()) : YamlNode.Mapping.empty(value.origin());
        }
        if (node instanceof YamlNode.Mapping mapping) {
            boolean propertyName = ConfigShape.PROPERTY_MAPS.contains(here);
            String key = propertyName ? String.join(".", path.subList(index, path.size())) : path.get(index);
            int next = propertyName ? path.size() : index + 1;
            YamlNode child = mapping.entry(key).map(YamlNode.Entry::value).orElse(null);
            return mapping.with(key, set(child, path, next, value));
        }
        if (node instanceof YamlNode.Sequence sequence) {
            int size = sequence.items().size();
            int position;
            try {
                position = Integer.parseInt(path.get(index));
            } catch (NumberFormatException e) {
                position = -1;
            }
            if (position < 0 || position > size) {
                throw new PathException(
                        size == 0
                                ? shown + " is an empty list; expected index 0 to append, was " + path.get(index)
                                : shown + " is a list of " + size + (size == 1 ? " item" : " items")
                                        + "; expected an index from 0 to " + (size - 1) + ", or " + size
                                        + " to append, was " + path.get(index));
            }
            YamlNode child = position < size ? sequence.items().get(position) : null;
            return sequence.with(position, set(child, path, index + 1, value));
        }
        throw new PathException(
                shown + " is a single value (" + node.describe() + "), so it has no key " + path.get(index));
    }

    /** A path that cannot be followed in the tree; ends that override only. */
    private static final class PathException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PathException(String message) {
            super(message, null, false, false);
        }
    }
}
