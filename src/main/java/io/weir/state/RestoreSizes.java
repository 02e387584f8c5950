package io.weir.state;

/** What restoring a store took: bytes reused from local files, and bytes read from the snapshot store. */
public record RestoreSizes(long localBytes, long downloadedBytes) {
    public static final RestoreSizes NONE = new RestoreSizes(0, 0);

    public RestoreSizes plus(RestoreSizes other) {
        return new RestoreSizes(localBytes + other.localBytes, downloadedBytes + other.downloadedBytes);
    }
}
