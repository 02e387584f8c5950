package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Keeps config/weir.schema.json and the loader's known keys and choices from drifting apart. */
class SchemaConsistencyTest {

    private static JsonNode schema;

    @BeforeAll
    static void readSchema() throws IOException {
        schema = new ObjectMapper().readTree(Path.of("config/weir.schema.json").toFile());
    }

    @Test
    void theSchemaIsDraft2020_12() {
        assertEquals(
                "https://json-schema.org/draft/2020-12/schema",
                schema.get("$schema").asText());
    }

    @Test
    void everySectionHasExactlyTheKeysTheLoaderKnows() {
        ConfigShape.SECTIONS.forEach((path, keys) -> {
            JsonNode section = objectWithProperties(at(path), path);
            assertEquals(new TreeSet<>(keys), names(section.get("properties")), "keys of section '" + path + "'");
            assertEquals(
                    false,
                    section.path("additionalProperties").asBoolean(true),
                    "section '" + path + "' must refuse unknown keys like the loader");
        });
    }

    @Test
    void thePipelineItemsAreExactlyTheKnownStepTypes() {
        JsonNode items = resolve(at("pipeline").get("items"));
        Set<String> types = new TreeSet<>();
        for (JsonNode alternative : items.get("oneOf")) {
            types.addAll(names(resolve(alternative).get("properties")));
        }
        assertEquals(new TreeSet<>(ConfigShape.STEP_TYPES), types);
    }

    @Test
    void expressionStepsAreWrittenAsAStringOrTheirSection() {
        for (String type : ConfigShape.EXPRESSION_STEPS) {
            JsonNode step = at("pipeline." + type);
            assertEquals(true, acceptsString(step), "pipeline." + type + " must accept a CEL expression (a string)");
            assertEquals(
                    ConfigShape.SECTIONS.containsKey("pipeline." + type),
                    hasProperties(step),
                    "pipeline." + type + " may be a mapping exactly when ConfigShape lists its section");
        }
    }

    @Test
    void everyStepTypeIsASectionOrAnExpression() {
        for (String type : ConfigShape.STEP_TYPES) {
            assertEquals(
                    true,
                    ConfigShape.SECTIONS.containsKey("pipeline." + type) || ConfigShape.EXPRESSION_STEPS.contains(type),
                    "step type " + type + " has neither keys in ConfigShape nor an expression form");
        }
    }

    private static boolean acceptsString(JsonNode node) {
        JsonNode resolved = resolve(node);
        if ("string".equals(resolved.path("type").asText())) {
            return true;
        }
        return alternatives(resolved).stream().anyMatch(SchemaConsistencyTest::acceptsString);
    }

    private static boolean hasProperties(JsonNode node) {
        JsonNode resolved = resolve(node);
        return resolved.has("properties")
                || alternatives(resolved).stream().anyMatch(SchemaConsistencyTest::hasProperties);
    }

    @Test
    void choicesMatchTheLoadersEnums() {
        assertChoices("processing.guarantee", ProcessingConfig.Guarantee.values());
        assertChoices("processing.auto-offset-reset", ProcessingConfig.OffsetReset.values());
        assertChoices("processing.restart.strategy", RestartConfig.Strategy.values());
        assertChoices("processing.state.backend", StateConfig.Backend.values());
        assertChoices("processing.state.snapshots", StateConfig.SnapshotStore.values());
        assertChoices("processing.state.rocksdb.cached-writes", RocksDbConfig.CachedWrites.values());
        assertChoices("pipeline.source.format", Format.values());
        assertChoices("pipeline.sink.format", Format.values());
        assertChoices("pipeline.source.key-format", Format.values());
        assertChoices("pipeline.sink.key-format", Format.values());
        assertChoices("pipeline.aggregate.emit", AggregateStep.Emit.values());
        assertChoices("dead-letter.oversized", DeadLetterConfig.Oversized.values());
    }

    private static void assertChoices(String path, Enum<?>[] constants) {
        List<String> expected =
                Arrays.stream(constants).map(ConfigShape::nameOf).toList();
        assertEquals(expected, enumOf(at(path)), "choices of " + path);
    }

    /** The schema node describing the value at a dotted path of {@link ConfigShape}. */
    private static JsonNode at(String path) {
        JsonNode node = schema;
        if (path.isEmpty()) {
            return node;
        }
        for (String name : path.split("\\.")) {
            JsonNode child = child(node, name);
            assertNotNull(child, "the schema has no '" + name + "' in " + path);
            node = child;
        }
        return node;
    }

    private static JsonNode child(JsonNode node, String name) {
        JsonNode resolved = resolve(node);
        if (resolved.path("properties").has(name)) {
            return resolved.get("properties").get(name);
        }
        if (resolved.has("items")) {
            return child(resolved.get("items"), name);
        }
        for (JsonNode alternative : alternatives(resolved)) {
            JsonNode found = child(alternative, name);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static JsonNode objectWithProperties(JsonNode node, String path) {
        JsonNode resolved = resolve(node);
        if (resolved.has("properties")) {
            return resolved;
        }
        if (resolved.has("items")) {
            return objectWithProperties(resolved.get("items"), path);
        }
        return alternatives(resolved).stream()
                .map(SchemaConsistencyTest::resolve)
                .filter(alternative -> alternative.has("properties"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no properties in the schema at '" + path + "'"));
    }

    private static List<String> enumOf(JsonNode node) {
        JsonNode resolved = resolve(node);
        if (resolved.has("enum")) {
            return StreamSupport.stream(resolved.get("enum").spliterator(), false)
                    .map(JsonNode::asText)
                    .toList();
        }
        return alternatives(resolved).stream()
                .map(SchemaConsistencyTest::enumOf)
                .filter(values -> !values.isEmpty())
                .findFirst()
                .orElse(List.of());
    }

    private static List<JsonNode> alternatives(JsonNode node) {
        List<JsonNode> alternatives = new ArrayList<>();
        for (String keyword : List.of("anyOf", "oneOf", "allOf")) {
            node.path(keyword).forEach(alternatives::add);
        }
        return alternatives;
    }

    private static JsonNode resolve(JsonNode node) {
        JsonNode resolved = node;
        while (resolved.has("$ref")) {
            String reference = resolved.get("$ref").asText();
            resolved = schema.at(reference.substring(1));
            assertEquals(false, resolved.isMissingNode(), "dangling $ref " + reference);
        }
        return resolved;
    }

    private static Set<String> names(JsonNode properties) {
        Set<String> names = new TreeSet<>();
        properties.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
