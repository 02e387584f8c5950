package io.weir.state;

import java.util.List;

/**
 * One file in a snapshot store: its name (unique per task and content), size, CRC32C of the whole
 * content, and store-specific locations (Kafka: {@code partition@offset} of each chunk;
 * filesystem: the relative path).
 */
public record StoredFile(String name, long size, long crc32c, List<String> locations) {
    public StoredFile {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a stored file needs a name");
        }
        if (size < 0) {
            throw new IllegalArgumentException("file size must not be negative, was " + size);
        }
        locations = List.copyOf(locations);
    }
}
