package io.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

final class EtcdDriverTestKeys {
    private EtcdDriverTestKeys() {}

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
