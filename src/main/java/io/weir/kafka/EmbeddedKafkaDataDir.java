package io.weir.kafka;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collection;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import kafka.server.KafkaConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link EmbeddedKafka} broker's data directory: created (a temporary one, or the one {@code
 * weir dev} keeps), formatted for KRaft as {@code kafka-storage.sh format} does, and deleted. (Its
 * name starts with the broker's: the runtime jar leaves out both.)
 */
final class EmbeddedKafkaDataDir {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    private EmbeddedKafkaDataDir() {}

    /**
     * Formats the log directories the way {@code kafka-storage.sh format --ignore-formatted}
     * ({@code kafka.tools.StorageTool}) does for a combined node with a static quorum. Directories
     * formatted before keep their cluster id, which is what lets {@code weir dev} restart on its own data.
     */
    static void format(KafkaConfig config) {
        TreeSet<String> directories = new TreeSet<>(config.logDirs());
        directories.add(config.metadataLogDir());
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                    .setNodeId(config.nodeId())
                    .setClusterId(existingClusterId(directories)
                            .orElseGet(() -> Uuid.randomUuid().toString()))
                    .setWriteBootstrapSnapshot(true)
                    .setUnstableFeatureVersionsEnabled(config.unstableFeatureVersionsEnabled())
                    .setIgnoreFormatted(true)
                    .setControllerListenerName(config.controllerListenerNames().get(0))
                    .setMetadataLogDirectory(config.metadataLogDir())
                    .setHasDynamicQuorum(false)
                    .setDirectories(directories)
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("Formatting the Kafka data directory failed: " + directories, e);
        }
    }

    /** The cluster id in the first formatted directory, since the formatter rejects any other for it. */
    private static Optional<String> existingClusterId(Collection<String> directories) {
        for (String directory : directories) {
            Path metaProperties = Path.of(directory, "meta.properties");
            if (Files.exists(metaProperties)) {
                Properties meta = new Properties();
                try (Reader reader = Files.newBufferedReader(metaProperties)) {
                    meta.load(reader);
                } catch (IOException e) {
                    throw new UncheckedIOException("Cannot read " + metaProperties, e);
                }
                return Optional.ofNullable(meta.getProperty("cluster.id"));
            }
        }
        return Optional.empty();
    }

    static Path createTemp() {
        try {
            return Files.createTempDirectory("weir-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a temporary Kafka data directory", e);
        }
    }

    static Path create(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the Kafka data directory " + dir, e);
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.delete(directory);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            LOG.warn("Could not delete the Kafka data directory {}", dir, e);
        }
    }
}
