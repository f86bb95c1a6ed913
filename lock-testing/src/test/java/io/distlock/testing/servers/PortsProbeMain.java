package io.distlock.testing.servers;

import java.util.ArrayList;
import java.util.List;

/** Run in a child JVM by {@link PortsTest}: reserves ports, prints them, waits until killed. */
public final class PortsProbeMain {
    static final int COUNT = 20;

    private PortsProbeMain() {}

    public static void main(String[] args) throws Exception {
        List<String> ports = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            ports.add(Integer.toString(Ports.free()));
        }
        System.out.println("PORTS " + String.join(",", ports));
        System.out.flush();
        while (System.in.read() != -1) {
            // wait until killed (or stdin closes)
        }
    }
}
