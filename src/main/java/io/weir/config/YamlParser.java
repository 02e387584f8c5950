package io.weir.config;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Turns YAML text into a {@link YamlNode} tree with SnakeYAML's composer, which keeps the position
 * of every node; no Java objects are constructed from the document. Syntax errors, keys that are
 * not scalars, duplicate keys and recursive aliases become errors with their positions. Merge keys
 * ({@code <<: *defaults}) are expanded, explicit keys winning over merged ones.
 */
final class YamlParser {

    private final String file;
    private final ErrorList errors;
    private final Set<Node> ancestors = Collections.newSetFromMap(new IdentityHashMap<>());

    private YamlParser(String file, ErrorList errors) {
        this.file = file;
        this.errors = errors;
    }

    /**
     * Parses {@code text}; empty when the document is empty or has a syntax error (then reported).
     */
    static Optional<YamlNode> parse(String file, String text, ErrorList errors) {
        Node root;
        try {
            root = new Yaml(new LoaderOptions()).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            reportSyntaxError(file, e, errors);
            return Optional.empty();
        } catch (YAMLException e) {
            errors.add(Origin.of(file), "invalid YAML: " + oneLine(e.getMessage()));
            return Optional.empty();
        }
        return root == null ? Optional.empty() : Optional.of(new YamlParser(file, errors).convert(root));
    }

    private static void reportSyntaxError(String file, MarkedYAMLException e, ErrorList errors) {
        Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        StringBuilder message = new StringBuilder("invalid YAML: ");
        String problem = e.getProblem() != null ? oneLine(e.getProblem()) : oneLine(e.getMessage());
        if (problem.startsWith("but ") && e.getContext() != null) {
            message.append(oneLine(e.getContext())).append(' ').append(problem);
        } else {
            message.append(problem);
        }
        if (!problem.startsWith("but ")
                && e.getContext() != null
                && e.getContextMark() != null
                && mark != e.getContextMark()) {
            Mark context = e.getContextMark();
            message.append(" (")
                    .append(oneLine(e.getContext()))
                    .append(" at line ")
                    .append(context.getLine() + 1)
                    .append(", column ")
                    .append(context.getColumn() + 1)
                    .append(')');
        }
        errors.add(mark == null ? Origin.of(file) : origin(file, mark), message.toString());
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    private static Origin origin(String file, Mark mark) {
        return new Origin(file, mark.getLine() + 1, mark.getColumn() + 1);
    }

    private Origin origin(Node node) {
        return origin(file, node.getStartMark());
    }

    private YamlNode convert(Node node) {
        if (!ancestors.add(node)) {
            errors.add(origin(node), "recursive alias: a value cannot contain itself");
            return new YamlNode.Scalar("", true, origin(node));
        }
        try {
            if (node instanceof ScalarNode scalar) {
                return new YamlNode.Scalar(
                        scalar.getValue(), Tag.NULL.equals(scalar.getTag()), origin(node), layout(scalar));
            } else if (node instanceof SequenceNode sequence) {
                List<YamlNode> items = new ArrayList<>();
                sequence.getValue().forEach(item -> items.add(convert(item)));
                return new YamlNode.Sequence(items, origin(node));
            } else {
                return convertMapping((MappingNode) node);
            }
        } finally {
            ancestors.remove(node);
        }
    }

    private static YamlNode.Scalar.Layout layout(ScalarNode scalar) {
        boolean oneLine = scalar.getEndMark() == null
                || scalar.getEndMark().getLine() == scalar.getStartMark().getLine();
        return switch (scalar.getScalarStyle()) {
            case PLAIN -> oneLine ? YamlNode.Scalar.Layout.PLAIN : YamlNode.Scalar.Layout.UNMAPPED;
            case SINGLE_QUOTED, DOUBLE_QUOTED ->
                oneLine && !escaped(scalar) ? YamlNode.Scalar.Layout.QUOTED : YamlNode.Scalar.Layout.UNMAPPED;
            default -> YamlNode.Scalar.Layout.UNMAPPED;
        };
    }

    /**
     * Whether a one-line quoted scalar is written longer than its text (escapes such as {@code \"}
     * or {@code ''}): then positions inside the text drift from the file's columns.
     */
    private static boolean escaped(ScalarNode scalar) {
        int written = scalar.getEndMark() == null
                ? -1
                : scalar.getEndMark().getColumn() - scalar.getStartMark().getColumn() - 2; // the quotes
        String text = scalar.getValue();
        return written != text.codePointCount(0, text.length());
    }

    private YamlNode.Mapping convertMapping(MappingNode node) {
        Map<String, YamlNode.Entry> explicit = new LinkedHashMap<>();
        List<YamlNode.Entry> merged = new ArrayList<>();
        for (NodeTuple tuple : node.getValue()) {
            Node keyNode = tuple.getKeyNode();
            if (Tag.MERGE.equals(keyNode.getTag())) {
                merge(tuple.getValueNode(), merged);
            } else if (keyNode instanceof ScalarNode key) {
                YamlNode.Entry entry = new YamlNode.Entry(
                        YamlNode.Scalar.of(key.getValue(), origin(key)), convert(tuple.getValueNode()));
                YamlNode.Entry first = explicit.putIfAbsent(key.getValue(), entry);
                if (first != null) {
                    explicit.put(key.getValue(), first);
                    errors.add(
                            origin(key),
                            "duplicate key " + key.getValue() + ", first given at line "
                                    + first.key().origin().line() + ", column "
                                    + first.key().origin().column());
                }
            } else {
                errors.add(
                        origin(keyNode),
                        "keys must be plain names, was " + (keyNode instanceof SequenceNode ? "a list" : "a mapping"));
            }
        }
        List<YamlNode.Entry> entries = new ArrayList<>(explicit.values());
        for (YamlNode.Entry entry : merged) {
            if (entries.stream().noneMatch(e -> e.name().equals(entry.name()))) {
                entries.add(entry);
            }
        }
        return new YamlNode.Mapping(entries, origin(node));
    }

    private void merge(Node value, List<YamlNode.Entry> into) {
        List<Node> sources = value instanceof SequenceNode list ? list.getValue() : List.of(value);
        for (Node source : sources) {
            if (convert(source) instanceof YamlNode.Mapping mapping) {
                into.addAll(mapping.entries());
            } else {
                errors.add(origin(source), "a merge key (<<) needs a mapping or a list of mappings");
            }
        }
    }
}
