package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every snapshot store must do, run against each one: files come back byte for byte with
 * the size and checksum they were stored with, in one piece or streamed; listing and deleting work
 * by name; and a damaged or lost file is refused with an error naming it, never returned.
 */
public abstract class SnapshotStoreContract {
    private static final AtomicInteger TESTS = new AtomicInteger();

    @TempDir
    public Path dir;

    /** Names of this test start with this, so tests sharing a store never see each other's files. */
    protected final String task = "task" + TESTS.incrementAndGet() + "-" + System.nanoTime() % 100_000;

    protected abstract SnapshotStore store();

    /** Changes the stored content of {@code file}; returns the handle to read it by. */
    protected abstract StoredFile damage(StoredFile file) throws Exception;

    /** Makes {@code file} unreadable as if it were gone; returns the handle to read it by. */
    protected abstract StoredFile lose(StoredFile file) throws Exception;

    protected static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private Path local(byte[] content) throws IOException {
        Path p = Files.createTempFile(dir, "local", ".bin");
        Files.write(p, content);
        return p;
    }

    @Test
    public void aWrittenFileReadsBackWithItsSizeAndChecksum() throws IOException {
        byte[] content = random(1000, 1);
        StoredFile f = store().write(task + "/g/1/small.bin", content);
        assertEquals(1000, f.size());
        assertEquals(Crc32c.of(content), f.crc32c());
        assertArrayEquals(content, store().read(f));
    }

    @Test
    public void aStreamedFileOfSeveralChunksDownloadsIdentical() throws IOException {
        byte[] content = random((5 << 20) / 2 + 17, 2);
        StoredFile f = store().write(task + "/g/1/000007.sst", local(content));
        assertEquals(content.length, f.size());
        Path target = dir.resolve("downloaded.sst");
        store().download(f, target);
        assertArrayEquals(content, Files.readAllBytes(target));
    }

    @Test
    public void anEmptyFileAndAFileOfExactlyOneChunkRoundTrip() throws IOException {
        StoredFile empty = store().write(task + "/g/1/CURRENT", local(new byte[0]));
        byte[] mib = random(1 << 20, 3);
        StoredFile exact = store().write(task + "/g/1/000009.sst", local(mib));
        assertEquals(0, store().read(empty).length);
        Path target = dir.resolve("exact.sst");
        store().download(exact, target);
        assertArrayEquals(mib, Files.readAllBytes(target));
    }

    @Test
    public void listingShowsTheAcceptedLiveFilesAndDeletingRemovesThem() throws IOException {
        StoredFile a = store().write(task + "/g/1/a", random(10, 4));
        StoredFile b = store().write(task + "/g/1/b", local(random(1_500_000, 5)));
        store().write(task + "-other/g/1/c", random(10, 6));
        assertEquals(Set.of(a.name(), b.name()), names(store().list(n -> n.startsWith(task + "/"))));
        assertEquals(1_500_000, store().list(n -> n.equals(b.name())).get(0).size());

        store().delete(b);
        assertEquals(Set.of(a.name()), names(store().list(n -> n.startsWith(task + "/"))));
        store().delete(store().list(n -> n.equals(a.name())).get(0)); // a listed file can be deleted
        assertTrue(store().list(n -> n.startsWith(task + "/")).isEmpty());
    }

    @Test
    public void aDamagedFileIsRefusedNamingItAndLeavesNoDownloadBehind() throws Exception {
        StoredFile f = store().write(task + "/g/2/000011.sst", local(random(1_200_000, 7)));
        StoredFile damaged = damage(f);
        IOException e = assertThrows(IOException.class, () -> store().read(damaged));
        assertTrue(e.getMessage().contains(f.name()), e.getMessage());
        Path target = dir.resolve("damaged.sst");
        assertThrows(IOException.class, () -> store().download(damaged, target));
        assertFalse(Files.exists(target), "a refused download leaves no file that could be mistaken for it");
    }

    @Test
    public void aLostFileIsRefusedNamingIt() throws Exception {
        StoredFile f = store().write(task + "/g/2/MANIFEST-000005", random(300, 8));
        StoredFile lost = lose(f);
        IOException e = assertThrows(IOException.class, () -> store().download(lost, dir.resolve("lost")));
        assertTrue(e.getMessage().contains(f.name()), e.getMessage());
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
    }

    @Test
    public void aHandleWithAnotherChecksumIsRefused() throws IOException {
        StoredFile f = store().write(task + "/g/3/OPTIONS-000007", random(500, 9));
        StoredFile wrong = new StoredFile(f.name(), f.size(), f.crc32c() ^ 1, f.locations());
        IOException e = assertThrows(IOException.class, () -> store().read(wrong));
        assertTrue(e.getMessage().contains(f.name()), e.getMessage());
    }

    @Test
    public void severalFilesDownloadTogetherEachIdenticalToItsContent() throws IOException {
        Map<StoredFile, byte[]> contents = new LinkedHashMap<>();
        int[] sizes = {0, 1, 300, 1 << 20, (5 << 20) / 2 + 17, 4096, 70_000, 12};
        for (int i = 0; i < sizes.length; i++) {
            byte[] content = random(sizes[i], 20 + i);
            contents.put(store().write(task + "/g/4/" + (100 + i) + ".sst", local(content)), content);
        }
        Map<StoredFile, Path> targets = new LinkedHashMap<>();
        contents.keySet()
                .forEach(f -> targets.put(f, dir.resolve("all-" + f.name().replace('/', '_'))));
        Files.writeString(targets.values().iterator().next(), "stale"); // an existing target is replaced

        store().downloadAll(targets);

        for (Map.Entry<StoredFile, byte[]> e : contents.entrySet()) {
            assertArrayEquals(
                    e.getValue(),
                    Files.readAllBytes(targets.get(e.getKey())),
                    e.getKey().name());
        }
        StoredFile second = contents.keySet().stream().skip(2).findFirst().orElseThrow();
        assertArrayEquals(contents.get(second), store().read(second), "one file read after them all");
        store().downloadAll(Map.of()); // nothing to do
    }

    @Test
    public void aDamagedFileAmongSeveralIsRefusedNamingItAndLeavesNoTargetOfItBehind() throws Exception {
        StoredFile good = store().write(task + "/g/5/000021.sst", random(2000, 30));
        StoredFile damaged = damage(store().write(task + "/g/5/000022.sst", local(random(1_200_000, 31))));
        StoredFile other = store().write(task + "/g/5/000023.sst", random(3000, 32));
        Map<StoredFile, Path> targets = new LinkedHashMap<>();
        targets.put(good, dir.resolve("good.sst"));
        targets.put(damaged, dir.resolve("damaged.sst"));
        targets.put(other, dir.resolve("other.sst"));
        IOException e = assertThrows(IOException.class, () -> store().downloadAll(targets));
        assertTrue(e.getMessage().contains(damaged.name()), e.getMessage());
        assertFalse(Files.exists(dir.resolve("damaged.sst")), "no file that could be mistaken for the damaged one");
        assertArrayEquals(random(3000, 32), store().read(other), "the store reads on after a refused download");
    }

    @Test
    public void uploaderThreadsWriteConcurrently() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<StoredFile>> written = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                written.add(
                        pool.submit(() -> store().write(task + "/g/4/" + n + ".sst", local(random(300_000 + n, n)))));
            }
            for (int i = 0; i < 8; i++) {
                assertArrayEquals(
                        random(300_000 + i, i), store().read(written.get(i).get()));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Set<String> names(List<StoredFile> files) {
        return files.stream().map(StoredFile::name).collect(Collectors.toSet());
    }
}
