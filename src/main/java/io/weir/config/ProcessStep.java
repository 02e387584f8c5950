package io.weir.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A custom operator: {@code className} is the binary name of a class the runtime loads from the
 * jars in {@code processing.plugins}, and {@code with} is its settings as written in the file,
 * unmodifiable and in file order: scalars as {@code String}s (the operator parses numbers and
 * flags itself), mappings as {@code Map<String, Object>} and lists as {@code List<Object>};
 * YAML nulls are refused at loading, so no value is {@code null}. {@code at} is where the class
 * name was written ({@code job.yaml:7:14}, {@code --set pipeline.2.process.class}), for the errors
 * of loading the class, which happen after the configuration was read.
 */
public record ProcessStep(String className, Map<String, Object> with, String at) implements OperatorStep {

    /** A Java binary class name: dotted identifiers, nested classes after {@code $}. */
    static final Pattern CLASS_NAME = Pattern.compile("\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*"
            + "(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*");

    public ProcessStep {
        Objects.requireNonNull(className, "className");
        if (!CLASS_NAME.matcher(className).matches()) {
            throw new IllegalArgumentException("not a Java class name: " + className);
        }
        with = frozen(Objects.requireNonNull(with, "with"));
        Objects.requireNonNull(at, "at");
    }

    @Override
    public String type() {
        return "process";
    }

    private static Map<String, Object> frozen(Map<String, Object> map) {
        Map<String, Object> copy = new LinkedHashMap<>();
        map.forEach((key, value) -> copy.put(Objects.requireNonNull(key), frozenValue(value)));
        return Collections.unmodifiableMap(copy);
    }

    private static Object frozenValue(Object value) {
        if (value instanceof String) {
            return value;
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((key, item) -> copy.put((String) Objects.requireNonNull(key), frozenValue(item)));
            return Collections.unmodifiableMap(copy);
        }
        if (value instanceof List<?> list) {
            return List.copyOf(list.stream().map(ProcessStep::frozenValue).toList());
        }
        throw new IllegalArgumentException("with holds strings, maps and lists only, was "
                + (value == null ? "null" : value.getClass().getSimpleName()));
    }
}
