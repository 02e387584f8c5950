package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvSubstitutionTest {

    private static final String JOB =
            """
      application: ${APP:app}
      instance-id: ${POD_NAME:}
      kafka: { bootstrap: "${KAFKA_BOOTSTRAP:localhost:9092}" }
      processing: { threads: "${THREADS:2}", checkpoint: { interval: "${INTERVAL:1s}" } }
      pipeline:
        - source: { topic: "${PREFIX:}orders" }
        - aggregate: { count: n }
        - sink: { topic: out }
      """;

    @Test
    void defaultsApplyWhenVariablesAreUnset() {
        WeirConfig config = Configs.load(JOB);

        assertEquals("app", config.application());
        assertEquals("test-host", config.instanceId());
        assertEquals("localhost:9092", config.kafka().bootstrap());
        assertEquals(2, config.processing().threads());
        assertEquals("orders", config.pipeline().source().topic());
    }

    @Test
    void variablesReplaceReferencesAnywhereInAValue() {
        WeirConfig config = Configs.load(
                JOB,
                Map.of(
                        "APP",
                        "shop",
                        "POD_NAME",
                        "pod-1",
                        "KAFKA_BOOTSTRAP",
                        "k1:9092,k2:9092",
                        "THREADS",
                        "6",
                        "INTERVAL",
                        "250ms",
                        "PREFIX",
                        "eu."));

        assertEquals("shop", config.application());
        assertEquals("pod-1", config.instanceId());
        assertEquals("k1:9092,k2:9092", config.kafka().bootstrap());
        assertEquals(6, config.processing().threads());
        assertEquals(Duration.ofMillis(250), config.processing().checkpoint().interval());
        assertEquals("eu.orders", config.pipeline().source().topic());
    }

    @Test
    void anEmptyVariableCountsAsUnset() {
        assertEquals("app", Configs.load(JOB, Map.of("APP", "")).application());
    }

    @Test
    void substitutedValuesAreValidatedAtTheReference() {
        assertEquals(
                "config/job.yaml:4:24: processing.threads must be at least 1, was 0",
                Configs.errors(JOB, Map.of("THREADS", "0")).get(0).toString());
    }

    @Test
    void aMissingVariableWithoutDefaultNamesTheVariableAndPosition() {
        List<ConfigError> errors = Configs.errors(
                """
        application: ${APP}
        kafka: { bootstrap: "${BOOT}:${PORT}" }
        pipeline:
          - source: { topic: in }
          - sink: { topic: out }
        """);

        assertEquals(
                List.of(
                        new ConfigError(
                                Configs.FILE,
                                1,
                                14,
                                "application: environment variable APP is not set "
                                        + "and ${APP} has no default; set it or write ${APP:default}"),
                        new ConfigError(
                                Configs.FILE,
                                2,
                                21,
                                "kafka.bootstrap: environment variable BOOT is not "
                                        + "set and ${BOOT} has no default; set it or write ${BOOT:default}"),
                        new ConfigError(
                                Configs.FILE,
                                2,
                                21,
                                "kafka.bootstrap: environment variable PORT is not "
                                        + "set and ${PORT} has no default; set it or write ${PORT:default}")),
                errors);
    }

    @Test
    void malformedReferencesAreReported() {
        List<String> errors = Configs.errors(
                        """
        application: ${APP
        instance-id: ${1X}
        pipeline:
          - source: { topic: in }
          - sink: { topic: out }
        """)
                .stream()
                .map(ConfigError::toString)
                .toList();

        assertEquals(
                List.of(
                        "config/job.yaml:1:14: application: unterminated ${ in ${APP, expected ${NAME} or "
                                + "${NAME:default}",
                        "config/job.yaml:2:14: instance-id: ${1X} does not name a variable, expected ${NAME} or "
                                + "${NAME:default} with NAME of letters, digits and _"),
                errors);
    }

    @Test
    void aDoubledDollarWritesALiteralReference() {
        WeirConfig config =
                Configs.load(Configs.minimalWith("kafka: { properties: { sasl.jaas.config: \"x=$${NOT_A_VAR}\" } }\n"));

        assertEquals("x=${NOT_A_VAR}", config.kafka().properties().get("sasl.jaas.config"));
    }

    @Test
    void keysAreNotSubstituted() {
        WeirConfig config = Configs.load(Configs.minimalWith("kafka: { properties: { \"${KEY:k}\": v } }\n"));

        assertEquals(Map.of("${KEY:k}", "v"), config.kafka().properties());
    }
}
