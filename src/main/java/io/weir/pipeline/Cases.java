package io.weir.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.weir.config.Format;
import io.weir.dataflow.Stage;
import io.weir.element.Header;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The test cases of {@code weir test}: for each case, input records written in YAML, run through the
 * job in-process ({@link LocalRun}), and the records each topic must receive. Records are compared
 * per topic and key, in order; a topic the case does not name must receive nothing. See
 * {@code docs/testing.md} for the file's form.
 */
public final class Cases {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The name a case may use for the dead-letter topic, whatever the topic is called. */
    public static final String DEAD_LETTER = "dead-letter";

    /** One case as written. */
    record Case(String name, List<LocalRun.Input> inputs, Map<String, List<JsonNode>> expect) {}

    /** A case's outcome: empty differences when it passed. */
    public record Result(String name, List<String> differences) {
        public boolean passed() {
            return differences.isEmpty();
        }
    }

    /** A cases file that cannot be read, with the place and what was expected. */
    public static final class CasesException extends Exception {
        public CasesException(String message) {
            super(message);
        }
    }

    private final Plan plan;
    private final List<Stage> stages;
    private final String deadLetterTopic;
    /** The topics a case may expect records on: the job's outputs and its dead-letter topic. */
    private final Set<String> written = new LinkedHashSet<>();

    public Cases(Plan plan, List<Stage> stages, String deadLetterTopic) {
        this.plan = plan;
        this.stages = stages;
        this.deadLetterTopic = deadLetterTopic;
        for (Plan.StagePlan stage : plan.stages()) {
            for (String topic : stage.writes(deadLetterTopic)) {
                if (!topic.endsWith(" (internal)")) {
                    written.add(topic.replace(" (late records)", ""));
                }
            }
        }
    }

    /** Runs every case of {@code file}. */
    public List<Result> run(Path file) throws CasesException, Exception {
        JsonNode root;
        try {
            root = YAML.readTree(file.toFile());
        } catch (IOException e) {
            throw new CasesException(file + ": cannot read the cases: " + e.getMessage());
        }
        if (root == null || !root.path("cases").isArray()) {
            throw new CasesException(file + ": expected a mapping with a list 'cases'");
        }
        known(root, ROOT_KEYS, file + ":");
        List<Result> results = new ArrayList<>();
        int i = 0;
        for (JsonNode c : root.get("cases")) {
            Case parsed = parse(file, i++, c);
            List<LocalRun.Output> out = LocalRun.run(stages, parsed.inputs());
            results.add(new Result(parsed.name(), compare(parsed.expect(), out)));
        }
        return results;
    }

    private Case parse(Path file, int index, JsonNode c) throws CasesException {
        String name = c.path("name").asText("case " + (index + 1));
        String where = file + ": case '" + name + "'";
        if (!c.path("input").isArray()) {
            throw new CasesException(where + ": expected a list 'input' of records");
        }
        known(c, CASE_KEYS, where + ":");
        Plan.StagePlan first = plan.stages().get(0);
        List<String> sideTopics = new ArrayList<>();
        for (Plan.StepPlan step : first.steps()) {
            if (Plan.sideInput(step.step()) != null) {
                sideTopics.add(Plan.sideInput(step.step()).topic());
            }
        }
        List<LocalRun.Input> inputs = new ArrayList<>();
        long time = 0;
        for (JsonNode r : c.get("input")) {
            if (!r.isObject()) {
                throw new CasesException(
                        where + ": an input record must be a mapping (topic, key, value, timestamp, headers)");
            }
            known(r, INPUT_KEYS, where + ": input record " + (inputs.size() + 1) + ":");
            long ts = r.has("timestamp") ? r.get("timestamp").asLong() : time;
            time = ts + 1000;
            List<Header> headers = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = r.path("headers").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> h = it.next();
                headers.add(new Header(h.getKey(), h.getValue().asText().getBytes(StandardCharsets.UTF_8)));
            }
            String topic = null;
            if (r.hasNonNull("topic") && !r.get("topic").asText().equals(first.input())) {
                topic = r.get("topic").asText();
                if (!sideTopics.contains(topic)) {
                    throw new CasesException(where + ": input topic " + topic + " is not read by the job; it reads "
                            + first.input() + (sideTopics.isEmpty() ? "" : ", " + String.join(", ", sideTopics)));
                }
            }
            inputs.add(new LocalRun.Input(
                    topic,
                    bytes(r.get("key"), first.keyFormat()),
                    bytes(r.get("value"), first.valueFormat()),
                    ts,
                    headers));
        }
        Map<String, List<JsonNode>> expect = new LinkedHashMap<>();
        JsonNode e = c.path("expect");
        if (!e.isMissingNode() && !e.isNull() && !e.isObject()) {
            throw new CasesException(where + ": expect must map topic names to lists of records");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = e.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> t = it.next();
            String topic = t.getKey().equals(DEAD_LETTER) ? deadLetterTopic : t.getKey();
            if (!written.contains(topic)) {
                throw new CasesException(where + ": expect." + t.getKey() + ": the job writes no such topic; it writes "
                        + String.join(", ", written) + " (the dead-letter topic also as " + DEAD_LETTER + ")");
            }
            if (!t.getValue().isArray()) {
                throw new CasesException(where + ": expect." + t.getKey() + " must be a list of records");
            }
            List<JsonNode> records = new ArrayList<>();
            for (JsonNode r : t.getValue()) {
                if (!r.isObject()) {
                    throw new CasesException(where + ": expect." + t.getKey() + ": a record must be a mapping ("
                            + String.join(", ", EXPECTED_KEYS) + ")");
                }
                known(r, EXPECTED_KEYS, where + ": expect." + t.getKey() + " record " + (records.size() + 1) + ":");
                records.add(r);
            }
            expect.put(topic, records);
        }
        return new Case(name, inputs, expect);
    }

    private static final List<String> ROOT_KEYS = List.of("cases");
    private static final List<String> CASE_KEYS = List.of("name", "input", "expect");
    private static final List<String> INPUT_KEYS = List.of("topic", "key", "value", "timestamp", "headers");
    private static final List<String> EXPECTED_KEYS = List.of("key", "value", "timestamp", "error", "step");

    /** Refuses a key not in {@code allowed}: a misspelt one would be ignored, and its case pass unchecked. */
    private static void known(JsonNode node, List<String> allowed, String where) throws CasesException {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) {
                throw new CasesException(
                        where + " unknown key '" + key + "', expected one of " + String.join(", ", allowed));
            }
        }
    }

    /**
     * A YAML value as the bytes of a record in {@code format}: text as it is (so a JSON source can be
     * given text that is not JSON), anything else as JSON; null is a null key or a tombstone.
     */
    private static byte[] bytes(JsonNode node, Format format) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        if (node.isTextual()) {
            return node.asText().getBytes(StandardCharsets.UTF_8);
        }
        return node.toString().getBytes(StandardCharsets.UTF_8);
    }

    private List<String> compare(Map<String, List<JsonNode>> expect, List<LocalRun.Output> out) {
        Map<String, Map<String, List<LocalRun.Output>>> actual = new LinkedHashMap<>();
        for (LocalRun.Output o : out) {
            actual.computeIfAbsent(o.topic(), t -> new LinkedHashMap<>())
                    .computeIfAbsent(text(o.key()), k -> new ArrayList<>())
                    .add(o);
        }
        Set<String> topics = new LinkedHashSet<>(expect.keySet());
        topics.addAll(actual.keySet());
        List<String> diffs = new ArrayList<>();
        for (String topic : topics) {
            Map<String, List<JsonNode>> wanted = new LinkedHashMap<>();
            for (JsonNode r : expect.getOrDefault(topic, List.of())) {
                JsonNode k = r.get("key");
                wanted.computeIfAbsent(k == null || k.isNull() ? null : k.asText(), x -> new ArrayList<>())
                        .add(r);
            }
            // A LinkedHashMap, not Map.of(): an expected record without a key is looked up by null.
            Map<String, List<LocalRun.Output>> got = actual.getOrDefault(topic, new LinkedHashMap<>());
            Set<String> keys = new LinkedHashSet<>(wanted.keySet());
            keys.addAll(got.keySet());
            for (String key : keys) {
                compareKey(topic, key, wanted.getOrDefault(key, List.of()), got.getOrDefault(key, List.of()), diffs);
            }
        }
        return diffs;
    }

    private void compareKey(
            String topic, String key, List<JsonNode> wanted, List<LocalRun.Output> got, List<String> diffs) {
        String where = (topic.equals(deadLetterTopic) ? DEAD_LETTER + " (" + topic + ")" : topic) + ", key " + key;
        int n = Math.max(wanted.size(), got.size());
        for (int i = 0; i < n; i++) {
            if (i >= got.size()) {
                diffs.add(where + " #" + (i + 1) + ": missing  " + describe(wanted.get(i)));
            } else if (i >= wanted.size()) {
                diffs.add(where + " #" + (i + 1) + ": unexpected " + describe(got.get(i)));
            } else {
                String mismatch = mismatch(topic, wanted.get(i), got.get(i));
                if (mismatch != null) {
                    diffs.add(where + " #" + (i + 1) + ": " + mismatch + "\n      expected " + describe(wanted.get(i))
                            + "\n      actual   " + describe(got.get(i)));
                }
            }
        }
    }

    /** Why {@code got} is not {@code wanted}, or null when it matches. */
    private String mismatch(String topic, JsonNode wanted, LocalRun.Output got) {
        if (wanted.has("value")) {
            JsonNode w = wanted.get("value");
            String text = text(got.value());
            boolean same;
            if (w.isNull()) {
                same = got.value() == null;
            } else if (w.isTextual()) {
                same = w.asText().equals(text) || sameJson(JsonNodeFactory.instance.textNode(w.asText()), text);
            } else {
                same = sameJson(w, text);
            }
            if (!same) {
                return "value differs";
            }
        }
        if (wanted.has("error")) {
            String error = header(got, "weir.error");
            if (error == null || !error.contains(wanted.get("error").asText())) {
                return "error differs";
            }
        }
        if (wanted.has("step")) {
            String step = header(got, "weir.step");
            if (!wanted.get("step").asText().equals(step)) {
                return "step differs (" + (step == null ? "none" : step) + ")";
            }
        }
        if (wanted.has("timestamp") && wanted.get("timestamp").asLong() != got.timestamp()) {
            return "timestamp differs";
        }
        return null;
    }

    private static boolean sameJson(JsonNode wanted, String text) {
        if (text == null) {
            return false;
        }
        try {
            JsonNode actual = JSON.readTree(text);
            return actual != null && wanted.equals(new NumericComparator(), actual);
        } catch (IOException e) {
            return false;
        }
    }

    /** Numbers are equal by value, so 40 in a case matches 40.0 written by an average. */
    private static final class NumericComparator implements java.util.Comparator<JsonNode> {
        @Override
        public int compare(JsonNode a, JsonNode b) {
            if (a.isNumber() && b.isNumber()) {
                return a.decimalValue().compareTo(b.decimalValue());
            }
            return a.equals(b) ? 0 : 1;
        }
    }

    private static String header(LocalRun.Output o, String name) {
        String found = null;
        for (Header h : o.headers()) {
            if (h.key().equals(name)) {
                found = text(h.value());
            }
        }
        return found;
    }

    private static String describe(JsonNode wanted) {
        return wanted.toString();
    }

    private static String describe(LocalRun.Output o) {
        String error = header(o, "weir.error");
        String step = header(o, "weir.step");
        return "{key: " + text(o.key()) + ", value: " + text(o.value()) + (error == null ? "" : ", error: " + error)
                + (step == null ? "" : ", step: " + step) + "}";
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
