package io.rnic.dpdkbindings;

import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One EAL for every test of this JVM (it initialises once per process): no hugepages, no shared configuration, no
 * PCI scan. Tests need DPDK installed; with {@code -Drnic.require.dpdk=true} (the README's test command) a missing
 * DPDK fails them instead of skipping.
 */
public final class TestEal
{
    public static final List<String> ARGS = List.of("--no-huge", "-m", "512", "--no-shconf", "--no-pci");

    private TestEal()
    {
    }

    public static void ensure()
    {
        if (!Boolean.getBoolean("rnic.require.dpdk"))
        {
            assumeTrue(DpdkBindings.unavailableReason() == null, () -> "DPDK: " + DpdkBindings.unavailableReason());
        }
        Eal.init(ARGS);
    }
}
