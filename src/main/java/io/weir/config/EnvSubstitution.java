package io.weir.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Replaces {@code ${NAME}} and {@code ${NAME:default}} in scalar values with environment
 * variables, before binding, so that numbers and durations can come from the environment too.
 * The default is used when the variable is unset or empty and may contain colons
 * ({@code ${KAFKA_BOOTSTRAP:localhost:9092}}); {@code $${} writes a literal {@code ${}. Keys are
 * never substituted. A variable that is unset and has no default is an error at its value.
 */
final class EnvSubstitution {

    private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final Map<String, String> env;
    private final ErrorList errors;

    EnvSubstitution(Map<String, String> env, ErrorList errors) {
        this.env = env;
        this.errors = errors;
    }

    YamlNode apply(YamlNode node, String path) {
        if (node instanceof YamlNode.Scalar scalar) {
            return scalar.isNull() || !scalar.text().contains("${")
                    ? scalar
                    : new YamlNode.Scalar(substitute(scalar, path), false, scalar.origin(), scalar.layout());
        } else if (node instanceof YamlNode.Mapping mapping) {
            List<YamlNode.Entry> entries = new ArrayList<>();
            for (YamlNode.Entry entry : mapping.entries()) {
                String childPath = path.isEmpty() ? entry.name() : path + "." + entry.name();
                entries.add(new YamlNode.Entry(entry.key(), apply(entry.value(), childPath)));
            }
            return new YamlNode.Mapping(entries, mapping.origin());
        } else {
            YamlNode.Sequence sequence = (YamlNode.Sequence) node;
            List<YamlNode> items = new ArrayList<>();
            for (int i = 0; i < sequence.items().size(); i++) {
                items.add(apply(sequence.items().get(i), path + "." + i));
            }
            return new YamlNode.Sequence(items, sequence.origin());
        }
    }

    private String substitute(YamlNode.Scalar scalar, String path) {
        String text = scalar.text();
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            if (text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
            } else if (text.startsWith("${", i)) {
                int end = text.indexOf('}', i + 2);
                if (end < 0) {
                    errors.addBroken(
                            scalar.origin(),
                            path + ": unterminated ${ in " + text + ", expected ${NAME} or ${NAME:default}");
                    return text;
                }
                out.append(resolve(text.substring(i + 2, end), scalar, path));
                i = end + 1;
            } else {
                out.append(text.charAt(i));
                i++;
            }
        }
        return out.toString();
    }

    private String resolve(String reference, YamlNode.Scalar scalar, String path) {
        int colon = reference.indexOf(':');
        String name = colon < 0 ? reference : reference.substring(0, colon);
        String fallback = colon < 0 ? null : reference.substring(colon + 1);
        if (!VARIABLE_NAME.matcher(name).matches()) {
            errors.addBroken(
                    scalar.origin(),
                    path + ": ${" + reference + "} does not name a variable, "
                            + "expected ${NAME} or ${NAME:default} with NAME of letters, digits and _");
            return "";
        }
        String value = env.get(name);
        if (value != null && !value.isEmpty()) {
            return value;
        }
        if (fallback == null) {
            errors.addBroken(
                    scalar.origin(),
                    path + ": environment variable " + name
                            + " is not set and ${" + name + "} has no default; set it or write ${" + name
                            + ":default}");
            return "";
        }
        return fallback;
    }
}
