package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cases file of {@code weir test} that says something it cannot mean is refused, not passed unchecked. */
class CasesFileTest {
    private static final String JOB =
            """
            application: counted
            kafka: { bootstrap: localhost:9092 }
            pipeline:
              - source: { topic: orders, format: json }
              - aggregate: { by: key, key-as: user, count: n }
              - sink: { topic: counts, format: json }
            """;

    private static ExamplesTest.Run test(Path dir, String cases) throws IOException {
        Path job = Files.writeString(dir.resolve("job.yaml"), JOB);
        Path file = Files.writeString(dir.resolve("job.cases.yaml"), cases);
        return ExamplesTest.weir("test", "--config", job.toString(), "--cases", file.toString());
    }

    private static void refused(Path dir, String cases, String message) throws IOException {
        ExamplesTest.Run run = test(dir, cases);
        assertEquals(2, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains(message), run.err());
    }

    @Test
    void aCorrectFilePasses(@TempDir Path dir) throws IOException {
        ExamplesTest.Run run = test(
                dir,
                """
                cases:
                  - name: one
                    input:
                      - { key: u1, value: { amount: 1 }, timestamp: 5 }
                    expect:
                      counts:
                        - { key: u1, value: { user: u1, n: 1 }, timestamp: 5 }
                      dead-letter: []
                """);
        assertEquals(0, run.exit(), run.out() + run.err());
    }

    @Test
    void aMisspeltKeyOfAnInputRecordIsRefused(@TempDir Path dir) throws IOException {
        // Ignored, its timestamp would silently be the default and the case could pass.
        refused(
                dir,
                """
                cases:
                  - name: one
                    input:
                      - { key: u1, value: { amount: 1 }, timestmp: 5 }
                    expect:
                      counts:
                        - { key: u1, value: { user: u1, n: 1 } }
                """,
                "case 'one': input record 1: unknown key 'timestmp', expected one of topic, key, value, timestamp,"
                        + " headers");
    }

    @Test
    void aMisspeltKeyOfAnExpectedRecordOrACaseIsRefused(@TempDir Path dir) throws IOException {
        refused(
                dir,
                """
                cases:
                  - name: one
                    input:
                      - { key: u1, value: { amount: 1 } }
                    expect:
                      counts:
                        - { key: u1, valeu: { user: u1, n: 7 } }
                """,
                "case 'one': expect.counts record 1: unknown key 'valeu', expected one of key, value, timestamp,"
                        + " error, step");
        refused(
                dir,
                """
                cases:
                  - name: one
                    input:
                      - { key: u1, value: { amount: 1 } }
                    expected:
                      counts: []
                """,
                "case 'one': unknown key 'expected', expected one of name, input, expect");
    }

    @Test
    void anExpectedTopicTheJobDoesNotWriteIsRefused(@TempDir Path dir) throws IOException {
        // "nothing on cuonts" would hold whatever the job does.
        refused(
                dir,
                """
                cases:
                  - name: one
                    input:
                      - { key: u1, value: { amount: 1 } }
                    expect:
                      counts:
                        - { key: u1, value: { user: u1, n: 1 } }
                      cuonts: []
                """,
                "case 'one': expect.cuonts: the job writes no such topic; it writes counts");
    }
}
