package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YamlSyntaxTest {

    @Test
    void aSyntaxErrorIsReportedWithItsPosition() {
        assertEquals(
                "config/job.yaml:2:1: invalid YAML: expected ',' or ']', but got <stream end> "
                        + "(while parsing a flow sequence at line 1, column 14)",
                Configs.error("application: [x\n"));
    }

    @Test
    void tabIndentationIsReportedWithItsPosition() {
        assertEquals(
                "config/job.yaml:3:1: invalid YAML: found character '\\t(TAB)' that cannot "
                        + "start any token. (Do not use \\t(TAB) for indentation)",
                Configs.error("application: app\nhttp:\n\tport: 1\n"));
    }

    @Test
    void aDuplicateKeyIsReportedAtItsSecondOccurrence() {
        assertEquals(
                "config/job.yaml:6:1: duplicate key application, first given at line 1, " + "column 1",
                Configs.error(Configs.MINIMAL + "application: other\n"));
    }

    @Test
    void anEmptyFileIsReported() {
        assertEquals(
                "config/job.yaml: the file is empty; expected a mapping with at least " + "application and pipeline",
                Configs.error("# nothing yet\n"));
    }

    @Test
    void aTopLevelListIsReported() {
        assertEquals(
                "config/job.yaml:1:1: the top level must be a mapping of settings "
                        + "(application, kafka, processing, pipeline, ...), was a list",
                Configs.error("- a\n"));
    }

    @Test
    void aKeyThatIsNotAScalarIsReported() {
        assertEquals(
                "config/job.yaml:6:3: keys must be plain names, was a list",
                Configs.error(Configs.MINIMAL + "? [a, b]\n: c\n"));
    }

    @Test
    void aRecursiveAliasIsReportedInsteadOfLooping() {
        List<ConfigError> errors = Configs.errors(Configs.MINIMAL + "kafka: &k { properties: *k }\n");

        assertEquals(
                "config/job.yaml:6:8: recursive alias: a value cannot contain itself",
                errors.get(0).toString());
    }

    @Test
    void severalDocumentsAreRefused() {
        assertEquals(
                "config/job.yaml:6:1: invalid YAML: expected a single document in the stream "
                        + "but found another document",
                Configs.error(Configs.MINIMAL + "---\na: b\n"));
    }

    @Test
    void aMissingFileIsReportedWithoutAStackTrace(@TempDir Path dir) {
        Path missing = dir.resolve("absent.yaml");
        ConfigException e =
                assertThrows(ConfigException.class, () -> new ConfigLoader().load(missing, Map.of(), List.of()));

        assertEquals(missing + ": cannot read the configuration: no such file", e.getMessage());
    }

    @Test
    void aFileThatIsNotUtf8IsReported(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("latin1.yaml");
        Files.write(file, "application: caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        ConfigException e =
                assertThrows(ConfigException.class, () -> new ConfigLoader().load(file, Map.of(), List.of()));

        assertEquals(file + ": cannot read the configuration: it is not UTF-8 text", e.getMessage());
    }

    @Test
    void aFileWithAByteOrderMarkLoads() {
        Configs.load("\uFEFF" + Configs.MINIMAL);
    }
}
