package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ValidateCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(Map<String, String> env, String... args) {
        CommandLine command = new CommandLine(new ValidateCommand(env));
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        return command.execute(args);
    }

    @Test
    void theExampleIsReportedValid() {
        int code = run(Map.of(), "--config", "config/examples/running-totals.yaml");

        assertEquals(0, code);
        assertEquals(
                "ok: config/examples/running-totals.yaml (application running-totals, 3 steps)"
                        + System.lineSeparator(),
                out.toString());
        assertEquals("", err.toString());
    }

    @Test
    void overridesAndVariablesAreApplied() {
        int code = run(
                Map.of("KAFKA_BOOTSTRAP", "k:9092"),
                "--config",
                "config/examples/running-totals.yaml",
                "--set",
                "application=other",
                "--set",
                "processing.threads=4");

        assertEquals(0, code);
        assertEquals(
                "ok: config/examples/running-totals.yaml (application other, 3 steps)" + System.lineSeparator(),
                out.toString());
    }

    @Test
    void stateBackendSnapshotStoreRetentionAndRocksDbSettingsAreKnown() {
        int code = run(
                Map.of(),
                "--config",
                "config/examples/running-totals.yaml",
                "--set",
                "processing.state.backend=memory",
                "--set",
                "processing.state.snapshots=filesystem",
                "--set",
                "processing.state.snapshot-dir=/var/lib/weir-snapshots",
                "--set",
                "processing.state.retain=5",
                "--set",
                "processing.state.rocksdb.block-cache=256MiB",
                "--set",
                "processing.state.rocksdb.write-buffer=16MiB");

        assertEquals(0, code, err.toString());
    }

    @Test
    void anUnknownStateBackendIsReportedWithTheChoices() {
        int code = run(
                Map.of(),
                "--config",
                "config/examples/running-totals.yaml",
                "--set",
                "processing.state.backend=leveldb");

        assertEquals(2, code);
        assertEquals(true, err.toString().contains("processing.state.backend"), err.toString());
        assertEquals(true, err.toString().contains("rocksdb"), err.toString());
    }

    @Test
    void problemsGoToStandardErrorWithExitCodeTwo(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("job.yaml");
        Files.writeString(
                file,
                """
        application: app
        processing: { threads: 0 }
        pipeline:
          - source: { topic: in }
          - sink: { topic: out }
        """);

        int code = run(Map.of(), "--config", file.toString(), "--set", "http.port=x");

        assertEquals(2, code);
        assertEquals("", out.toString());
        assertEquals(
                file + ":2:24: processing.threads must be at least 1, was 0"
                        + System.lineSeparator()
                        + "--set http.port: http.port must be a whole number between 0 and 65535, was x"
                        + System.lineSeparator(),
                err.toString());
    }

    @Test
    void aMissingFileIsAnErrorNotAStackTrace(@TempDir Path dir) {
        Path file = dir.resolve("nope.yaml");

        assertEquals(2, run(Map.of(), "--config", file.toString()));
        assertEquals(file + ": cannot read the configuration: no such file" + System.lineSeparator(), err.toString());
    }

    @Test
    void theConfigOptionIsRequired() {
        assertEquals(2, run(Map.of()));
        assertEquals(true, err.toString().startsWith("Missing required option: '--config=FILE'"));
    }
}
