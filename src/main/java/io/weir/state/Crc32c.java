package io.weir.state;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/** The CRC32C of snapshot files, which stores record and restores verify (hardware-accelerated in the JDK). */
public final class Crc32c {
    private Crc32c() {}

    public static long of(byte[] content) {
        CRC32C crc = new CRC32C();
        crc.update(content);
        return crc.getValue();
    }

    public static long of(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                crc.update(buffer, 0, n);
            }
        }
        return crc.getValue();
    }
}
