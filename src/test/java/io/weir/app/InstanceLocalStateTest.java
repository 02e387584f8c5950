package io.weir.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which start connects its snapshot reader ahead: one whose restores will all download. */
class InstanceLocalStateTest {
    @TempDir
    Path dir;

    @Test
    void aMissingOrEmptyStateDirectoryHoldsNothingLocalAndOneWithATaskDoes() throws Exception {
        Path instance = dir.resolve("app").resolve("i1");
        assertTrue(Instance.nothingLocal(instance), "missing");
        Files.createDirectories(instance);
        assertTrue(Instance.nothingLocal(instance), "empty");
        Files.createDirectories(instance.resolve("app-running-totals-0"));
        assertFalse(Instance.nothingLocal(instance), "a task's directory from an earlier run");
    }
}
