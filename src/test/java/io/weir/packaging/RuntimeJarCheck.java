package io.weir.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * Checks the two jars that {@code mvn package} builds: {@code target/weir.jar}, the runtime jar the
 * container image runs, holds no Kafka broker, no Scala and only Linux natives;
 * {@code target/weir-dev.jar} has the broker. Run by failsafe in {@code verify}, after the jars exist.
 */
class RuntimeJarCheck {
    private static final Path RUNTIME = Path.of("target", "weir.jar");
    private static final Path DEV = Path.of("target", "weir-dev.jar");

    private static List<String> entries(Path jar) throws IOException {
        assertTrue(Files.isRegularFile(jar), jar + " is built by `mvn package`");
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.stream().map(ZipEntry::getName).toList();
        }
    }

    @Test
    void runtimeJarHasNoBrokerAndNoScala() throws IOException {
        List<String> names = entries(RUNTIME);
        List<String> forbidden = List.of("kafka/", "scala/", "io/weir/kafka/EmbeddedKafka");
        // Of org.apache.kafka only what kafka-clients brings (its server.* packages are plugin APIs).
        List<String> clients = List.of(
                "org/apache/kafka/common/",
                "org/apache/kafka/clients/",
                "org/apache/kafka/shaded/",
                "org/apache/kafka/server/authorizer/",
                "org/apache/kafka/server/policy/",
                "org/apache/kafka/server/quota/",
                "org/apache/kafka/server/telemetry/");
        List<String> found = names.stream()
                .filter(n -> n.endsWith(".class"))
                .filter(n -> forbidden.stream().anyMatch(n::startsWith)
                        || (n.startsWith("org/apache/kafka/")
                                && clients.stream().noneMatch(n::startsWith)))
                .limit(10)
                .toList();
        assertEquals(List.of(), found, "broker or Scala classes in " + RUNTIME);
        for (String needed : List.of(
                "io/weir/cli/WeirCommand.class",
                "org/apache/kafka/clients/producer/KafkaProducer.class",
                "org/rocksdb/RocksDB.class",
                "io/weir/examples/running-totals.yaml",
                // Logback finds Weir's logging set-up through it (else: DEBUG, unmasked).
                "META-INF/services/ch.qos.logback.classic.spi.Configurator")) {
            assertTrue(names.contains(needed), needed + " missing from " + RUNTIME);
        }
    }

    @Test
    void runtimeJarHasOnlyLinuxNatives() throws IOException {
        List<String> names = entries(RUNTIME);
        List<String> natives = names.stream()
                .filter(n -> n.matches(".*\\.(so|dll|dylib|jnilib|a)$"))
                .toList();
        List<String> foreign = natives.stream()
                .filter(n -> !n.toLowerCase(Locale.ROOT).contains("linux"))
                .toList();
        assertEquals(List.of(), foreign, "non-Linux natives in " + RUNTIME);
        assertTrue(natives.contains("librocksdbjni-linux64.so"), "RocksDB for linux x86-64: " + natives);
        assertTrue(natives.contains("librocksdbjni-linux-aarch64.so"), "RocksDB for linux aarch64: " + natives);
    }

    @Test
    void devJarHasTheBroker() throws IOException {
        List<String> dev = entries(DEV);
        assertTrue(dev.contains("kafka/server/KafkaRaftServer.class"), DEV + " lacks the broker");
        assertTrue(dev.contains("io/weir/kafka/EmbeddedKafka.class"), DEV + " lacks Weir's embedded broker");
    }

    @Test
    void devFromTheRuntimeJarNamesTheDevJar() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-jar", RUNTIME.toString(), "dev")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "weir dev did not stop");
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.contains("weir-dev.jar"), out);
    }

    @Test
    void bothJarsSayTheProjectsVersion() throws IOException {
        for (Path jar : List.of(RUNTIME, DEV)) {
            try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
                String version = file.getManifest().getMainAttributes().getValue("Implementation-Version");
                assertTrue(version != null && version.matches("\\d+\\.\\d+\\.\\d+.*"), jar + ": " + version);
            }
        }
    }
}
