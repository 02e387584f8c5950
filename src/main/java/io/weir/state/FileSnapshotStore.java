package io.weir.state;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The {@code filesystem} snapshot store: one file per stored file under a directory (local disk or
 * a shared volume). A write goes to a temporary file that is forced to disk and then atomically
 * renamed, and the directory is forced after the rename, so a file that exists under its name is
 * complete and survives a crash of the machine.
 *
 * <p>Threading: stateless apart from the root; safe for concurrent use.
 */
public final class FileSnapshotStore implements SnapshotStore {
    private static final String TMP = ".tmp";

    private final Path root;

    public FileSnapshotStore(Path root) throws IOException {
        this.root = Files.createDirectories(root).toAbsolutePath().normalize();
    }

    @Override
    public StoredFile write(String name, byte[] content) throws IOException {
        Path target = resolve(name);
        Path tmp = tmpOf(target);
        try (FileChannel ch = open(tmp)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                ch.write(buffer);
            }
            ch.force(true);
        }
        publish(tmp, target);
        return new StoredFile(name, content.length, Crc32c.of(content), List.of(name));
    }

    @Override
    public StoredFile write(String name, Path file) throws IOException {
        Path target = resolve(name);
        Path tmp = tmpOf(target);
        CRC32C crc = new CRC32C();
        long size = 0;
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file);
                FileChannel ch = open(tmp)) {
            OutputStream out = Channels.newOutputStream(ch);
            for (int n; (n = in.read(buffer)) > 0; ) {
                crc.update(buffer, 0, n);
                out.write(buffer, 0, n);
                size += n;
            }
            ch.force(true);
        }
        publish(tmp, target);
        return new StoredFile(name, size, crc.getValue(), List.of(name));
    }

    @Override
    public byte[] read(StoredFile file) throws IOException {
        byte[] content;
        try {
            content = Files.readAllBytes(resolve(file.locations().get(0)));
        } catch (NoSuchFileException e) {
            throw new IOException("snapshot file " + file.name() + " is missing from " + root);
        }
        verify(file, content.length, Crc32c.of(content));
        return content;
    }

    @Override
    public void download(StoredFile file, Path target) throws IOException {
        Path source = resolve(file.locations().get(0));
        try {
            Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (NoSuchFileException e) {
            throw new IOException("snapshot file " + file.name() + " is missing from " + root);
        }
        try {
            verify(file, Files.size(target), Crc32c.of(target));
        } catch (IOException e) {
            Files.deleteIfExists(target);
            throw e;
        }
    }

    @Override
    public void delete(StoredFile file) throws IOException {
        Files.deleteIfExists(resolve(file.locations().get(0)));
    }

    @Override
    public List<StoredFile> list(Predicate<String> names) throws IOException {
        List<StoredFile> files = new ArrayList<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                String name =
                        root.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/");
                if (names.test(name)) {
                    try {
                        files.add(new StoredFile(name, Files.size(p), 0, List.of(name)));
                    } catch (NoSuchFileException e) {
                        // deleted while listing: not present any more, which is what the caller wants
                    }
                }
            }
        }
        return files;
    }

    @Override
    public void close() {}

    private void verify(StoredFile file, long size, long crc) throws IOException {
        if (size != file.size() || crc != file.crc32c()) {
            throw new IOException("snapshot file " + file.name() + " is corrupt: expected " + file.size()
                    + " bytes with crc32c " + file.crc32c() + ", found " + size + " bytes with crc32c " + crc);
        }
    }

    private static FileChannel open(Path tmp) throws IOException {
        Files.createDirectories(tmp.getParent());
        return FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    private static Path tmpOf(Path target) {
        return target.resolveSibling(target.getFileName() + TMP);
    }

    /** Rename, then force the directory: without it the rename itself may be lost in a crash. */
    private static void publish(Path tmp, Path target) throws IOException {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some file systems cannot open directories; the rename is then as durable as they make it.
        }
    }

    private Path resolve(String name) throws IOException {
        Path p = root.resolve(name).normalize();
        if (!p.startsWith(root) || p.equals(root)) {
            throw new IOException("snapshot file name escapes the store directory: " + name);
        }
        return p;
    }
}
