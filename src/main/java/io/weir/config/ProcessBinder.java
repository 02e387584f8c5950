package io.weir.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Binds a {@code process} step: the operator's class name, checked for its syntax only (the class
 * is loaded by the runtime from {@code processing.plugins}), and its {@code with} settings turned
 * into maps, lists and strings as {@link ProcessStep} describes; a YAML null among them is an error.
 */
final class ProcessBinder {

    private ProcessBinder() {}

    static Optional<Step> bind(Section section) {
        int mark = section.errors().size();
        Optional<String> className = section.matching(
                "class",
                section.requiredString("class", "the Java class of the operator, such as com.example.MyOperator")
                        .map(String::strip),
                ProcessStep.CLASS_NAME,
                Integer.MAX_VALUE,
                "a Java class name such as com.example.MyOperator");
        Map<String, Object> with = new LinkedHashMap<>();
        Optional<YamlNode> node = section.node("with");
        if (node.isPresent()) {
            if (node.get() instanceof YamlNode.Mapping mapping) {
                with = mapping(mapping, section.path("with"), section);
            } else {
                section.error(
                        node.get().origin(),
                        section.path("with") + " must be a mapping of the operator's settings, was "
                                + node.get().describe());
            }
        }
        section.rejectUnknownKeys();
        Map<String, Object> settings = with;
        String at = section.originOf("class").where();
        return section.build(mark, () -> new ProcessStep(className.orElseThrow(), settings, at));
    }

    private static Map<String, Object> mapping(YamlNode.Mapping mapping, String path, Section section) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (YamlNode.Entry entry : mapping.entries()) {
            value(entry.value(), path + "." + entry.name(), section).ifPresent(v -> map.put(entry.name(), v));
        }
        return map;
    }

    private static Optional<Object> value(YamlNode node, String path, Section section) {
        if (node instanceof YamlNode.Scalar scalar) {
            if (scalar.isNull()) {
                section.error(scalar.origin(), path + " must have a value, was null; leave the key out instead");
                return Optional.empty();
            }
            return Optional.of(scalar.text());
        }
        if (node instanceof YamlNode.Mapping mapping) {
            return Optional.of(mapping(mapping, path, section));
        }
        List<Object> list = new ArrayList<>();
        List<YamlNode> items = ((YamlNode.Sequence) node).items();
        for (int i = 0; i < items.size(); i++) {
            value(items.get(i), path + "." + i, section).ifPresent(list::add);
        }
        return Optional.of(list);
    }
}
