package io.weir.state;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/** File operations on a task's local state directory. */
final class LocalFiles {
    private LocalFiles() {}

    /**
     * Deletes a file or a directory with everything in it. Missing files are fine — also those that
     * another thread deletes meanwhile (the coordinator's thread and the closing thread both remove
     * old checkpoint directories).
     */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** A hard link where the file system allows it (same volume), else a copy. */
    static void linkOrCopy(Path existing, Path link) throws IOException {
        try {
            Files.createLink(link, existing);
        } catch (UnsupportedOperationException | IOException e) {
            Files.copy(existing, link);
        }
    }

    /** Copies the first {@code length} bytes of a file that may be growing (a log, a MANIFEST). */
    static void copyPrefix(Path from, Path to, long length) throws IOException {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
                FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long done = 0;
            while (done < length) {
                long n = in.transferTo(done, length - done, out);
                if (n <= 0) {
                    throw new IOException(from + " has " + in.size() + " bytes, fewer than the " + length + " to copy");
                }
                done += n;
            }
        }
    }
}
