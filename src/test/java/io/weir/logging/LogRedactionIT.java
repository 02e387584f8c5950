package io.weir.logging;

import static io.weir.fixtures.KafkaFixture.createTopic;
import static io.weir.fixtures.KafkaFixture.uniqueTopic;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.WeirProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Secrets of the Kafka client configuration never reach the output: a job whose
 * {@code sasl.jaas.config} and {@code ssl.key.password} carry marker values runs with
 * {@code --log-format json} on the real broker (the PLAINTEXT listener ignores both), and every
 * line it logs parses as JSON and none holds a marker; {@code validate}, {@code explain} and a
 * broken {@code --set} of a secret do not print them either.
 */
@ExtendWith(KafkaFixture.class)
class LogRedactionIT {
    private static final String MARKER = "Mk-4711-secret-pw";
    private static final String KEY_MARKER = "Kp-0815-key-pw";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path job(String application, String input) throws IOException {
        return Files.writeString(
                temp.resolve("job.yaml"),
                "application: " + application + "\n"
                        + "instance-id: redaction-0\n"
                        + "kafka:\n"
                        + "  bootstrap: \"" + KafkaFixture.bootstrap() + "\"\n"
                        + "  properties:\n"
                        + "    sasl.mechanism: PLAIN\n"
                        + "    sasl.jaas.config: 'org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"weir\" password=\"" + MARKER + "\";'\n"
                        + "    ssl.key.password: " + KEY_MARKER + "\n"
                        + "processing:\n"
                        + "  state: { backend: memory, dir: \"" + temp.resolve("state") + "\" }\n"
                        + "http: { port: 0 }\n"
                        + "pipeline:\n"
                        + "  - source: { topic: " + input + ", format: json }\n"
                        + "  - sink: { topic: " + input + "-out, format: json }\n");
    }

    @Test
    void aRunningJobLogsJsonLinesWithoutItsSecrets() throws Exception {
        String input = createTopic(uniqueTopic("redact-in"), 1);
        Path job = job(uniqueTopic("redact"), input);
        try (WeirProcess weir =
                WeirProcess.weir("log-redaction", List.of("run", "--log-format", "json", "--config", job.toString()))) {
            weir.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                weir.assertAlive();
                return Files.readString(weir.log(), StandardCharsets.UTF_8).contains("running 1 partitions");
            });
            weir.stop(); // SIGTERM: the JVM exits with 143 after the graceful stop
            List<String> lines = Files.readAllLines(weir.log(), StandardCharsets.UTF_8);
            assertTrue(lines.size() >= 3, () -> String.join("\n", lines));
            boolean configLogged = false;
            for (String line : lines) {
                assertFalse(line.contains(MARKER), line);
                assertFalse(line.contains(KEY_MARKER), line);
                JsonNode json = JSON.readTree(line);
                assertTrue(json.isObject() && json.has("level") && json.has("message"), line);
                String message = json.get("message").asText();
                if (message.startsWith("starting ")) {
                    configLogged = true;
                    assertTrue(
                            message.endsWith(" properties {sasl.jaas.config=[redacted], sasl.mechanism=PLAIN, "
                                    + "ssl.key.password=[redacted]} consumer {} producer {} admin {}"),
                            message);
                }
            }
            assertTrue(configLogged, () -> "no start line with the client configuration:\n" + String.join("\n", lines));
        }
    }

    @Test
    void aRunThatCannotStartSaysWhyInAJsonLine() throws Exception {
        Path job = temp.resolve("unstartable.yaml");
        Files.writeString(
                job,
                "application: unstartable\n"
                        + "kafka: { bootstrap: " + KafkaFixture.bootstrap() + " }\n"
                        + "processing: { plugins: " + temp.resolve("no-plugins") + " }\n"
                        + "pipeline:\n"
                        + "  - source: { topic: in, format: json }\n"
                        + "  - process: { class: com.acme.Nope }\n"
                        + "  - sink: { topic: out, format: json }\n");
        try (WeirProcess weir =
                WeirProcess.weir("unstartable", List.of("run", "--log-format", "json", "--config", job.toString()))) {
            weir.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(weir.log(), StandardCharsets.UTF_8)
                    .contains("weir: cannot start"));
            assertTrue(weir.stop() != 0);
            List<String> lines = Files.readAllLines(weir.log(), StandardCharsets.UTF_8);
            boolean said = false;
            for (String line : lines) {
                JsonNode json = JSON.readTree(line);
                assertTrue(json.isObject() && json.has("level") && json.has("message"), line);
                said |= json.get("level").asText().equals("ERROR")
                        && json.get("message")
                                .asText()
                                .startsWith("weir: cannot start: " + job
                                        + ":6:23: pipeline.1.process: class com.acme.Nope not found");
            }
            assertTrue(said, () -> String.join("\n", lines));
        }
    }

    @Test
    void commandsNeverPrintTheSecrets() throws Exception {
        Path job = job("redact-cli", "orders");
        String validate = run("validate", "--config", job.toString());
        assertTrue(validate.startsWith("0 ok: "), validate);
        String explain = run("explain", "--config", job.toString());
        assertTrue(explain.startsWith("0 job redact-cli"), explain);
        assertFalse(explain.contains(MARKER) || explain.contains(KEY_MARKER), explain);

        // A broken override of a secret names the key, never the value.
        String broken =
                run("validate", "--config", job.toString(), "--set", "kafka.properties.ssl.key.password={" + MARKER);
        assertTrue(broken.startsWith("2 "), broken);
        assertTrue(broken.contains("the value [redacted] is not valid YAML flow"), broken);
        assertFalse(broken.contains(MARKER), broken);
        String badKey = run("validate", "--config", job.toString(), "--set", ".sasl.jaas.config=" + MARKER);
        assertTrue(badKey.contains(".sasl.jaas.config=[redacted]"), badKey);
        assertFalse(badKey.contains(MARKER), badKey);
    }

    /** Exit code, a space, then stdout and stderr of {@code weir args} run in-process. */
    private static String run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = io.weir.cli.WeirCommand.commandLine(args);
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return code + " " + out + err;
    }
}
