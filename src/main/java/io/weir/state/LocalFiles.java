package io.weir.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** File operations on a task's local state directory. */
final class LocalFiles {
    private LocalFiles() {}

    /** Deletes a file or a directory with everything in it; a missing one is fine. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> walk = Files.walk(root)) {
            all = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (NoSuchFileException e) {
            return;
        }
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }

    /** A hard link where the file system allows it (same volume), else a copy. */
    static void linkOrCopy(Path existing, Path link) throws IOException {
        try {
            Files.createLink(link, existing);
        } catch (UnsupportedOperationException | IOException e) {
            Files.copy(existing, link);
        }
    }
}
