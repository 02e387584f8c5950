package io.weir.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The configuration file as a tree of scalars, mappings and lists, each node remembering its
 * {@link Origin}. It is what SnakeYAML composes, reduced to what binding needs and made immutable,
 * so that overrides and variable substitution produce new trees instead of editing a shared one.
 * Scalars keep their text untyped: binding decides whether {@code 2} is a number or a name.
 */
sealed interface YamlNode {

    Origin origin();

    /** How the node is named in "was ..." parts of messages. */
    String describe();

    /**
     * A scalar; {@code isNull} is set for YAML's null ({@code ~}, {@code null} or nothing at all),
     * which binding treats like an absent key. {@code layout} says how the text sits in the file,
     * which is what placing a position inside the text (such as a CEL error's) needs.
     */
    record Scalar(String text, boolean isNull, Origin origin, Layout layout) implements YamlNode {

        /**
         * How a scalar is written: plain on one line (the text starts at the origin), quoted on
         * one line without escapes (it starts one column after), or otherwise (block scalars,
         * folded plain or quoted text over several lines, quoted text with escapes such as
         * {@code \"} or {@code ''}), where positions inside the text are not those of the file.
         */
        enum Layout {
            PLAIN,
            QUOTED,
            UNMAPPED
        }

        public Scalar {
            java.util.Objects.requireNonNull(layout, "layout");
        }

        Scalar(String text, boolean isNull, Origin origin) {
            this(text, isNull, origin, Layout.PLAIN);
        }

        static Scalar of(String text, Origin origin) {
            return new Scalar(text, false, origin);
        }

        @Override
        public String describe() {
            return isNull ? "null" : text.isEmpty() ? "empty" : text;
        }
    }

    /** One key and its value in a mapping. */
    record Entry(Scalar key, YamlNode value) {
        String name() {
            return key.text();
        }
    }

    /** A mapping, keeping the order of its keys. */
    record Mapping(List<Entry> entries, Origin origin) implements YamlNode {

        public Mapping {
            entries = List.copyOf(entries);
        }

        static Mapping empty(Origin origin) {
            return new Mapping(List.of(), origin);
        }

        Optional<Entry> entry(String key) {
            return entries.stream().filter(e -> e.name().equals(key)).findFirst();
        }

        /** This mapping with {@code key} set to {@code value}, replacing or appending the entry. */
        Mapping with(String key, YamlNode value) {
            List<Entry> copy = new ArrayList<>(entries);
            for (int i = 0; i < copy.size(); i++) {
                if (copy.get(i).name().equals(key)) {
                    copy.set(i, new Entry(copy.get(i).key(), value));
                    return new Mapping(copy, origin);
                }
            }
            copy.add(new Entry(Scalar.of(key, value.origin()), value));
            return new Mapping(copy, origin);
        }

        @Override
        public String describe() {
            return "a mapping";
        }
    }

    /** A list. */
    record Sequence(List<YamlNode> items, Origin origin) implements YamlNode {

        public Sequence {
            items = List.copyOf(items);
        }

        /** This list with the item at {@code index} replaced, or appended when it equals the size. */
        Sequence with(int index, YamlNode value) {
            List<YamlNode> copy = new ArrayList<>(items);
            if (index == copy.size()) {
                copy.add(value);
            } else {
                copy.set(index, value);
            }
            return new Sequence(copy, origin);
        }

        @Override
        public String describe() {
            return "a list";
        }
    }
}
