package io.weir.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The {@code filesystem} snapshot store: one file per stored file under a directory (local disk or
 * a shared volume). A write goes to a temporary file that is forced to disk and then atomically
 * renamed, so a file that exists under its name is complete.
 */
public final class FileSnapshotStore implements SnapshotStore {
    private final Path root;

    public FileSnapshotStore(Path root) throws IOException {
        this.root = Files.createDirectories(root);
    }

    @Override
    public StoredFile write(String name, byte[] content) throws IOException {
        Path target = resolve(name);
        Files.createDirectories(target.getParent());
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(content));
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        // The rename is durable only once the directory entry is: sync the directory too.
        try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
        return new StoredFile(name, content.length, crc(content), List.of(name));
    }

    @Override
    public byte[] read(StoredFile file) throws IOException {
        byte[] content = Files.readAllBytes(resolve(file.locations().get(0)));
        if (content.length != file.size() || crc(content) != file.crc32c()) {
            throw new IOException("snapshot file " + file.name() + " is corrupt: expected " + file.size()
                    + " bytes with crc32c " + file.crc32c() + ", found " + content.length + " bytes with crc32c "
                    + crc(content));
        }
        return content;
    }

    @Override
    public void delete(StoredFile file) throws IOException {
        Files.deleteIfExists(resolve(file.locations().get(0)));
    }

    @Override
    public void close() {}

    private Path resolve(String name) throws IOException {
        Path p = root.resolve(name).normalize();
        if (!p.startsWith(root)) {
            throw new IOException("snapshot file name escapes the store directory: " + name);
        }
        return p;
    }

    static long crc(byte[] content) {
        CRC32C crc = new CRC32C();
        crc.update(content);
        return crc.getValue();
    }
}
