package io.rnic.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code -d} as perftest and rdma-core users give it: a device's name, and {@code -i}, the device's port. */
class DeviceNameTest
{
    @Test
    void shouldTakeTheDeviceNameDevinfoPrintsForTheInterfaceItServes(@TempDir final Path sysClassNet)
    {
        assertEquals("te0", Ports.interfaceOf("rnic_te0", sysClassNet));
        assertEquals("te0.10", Ports.interfaceOf("rnic_te0.10", sysClassNet));
        assertEquals("net_memif0", Ports.interfaceOf("rnic_net_memif0", sysClassNet));
        assertEquals("te0", Ports.interfaceOf("te0", sysClassNet));
        assertEquals("rnic_", Ports.interfaceOf("rnic_", sysClassNet));
    }

    @Test
    void shouldPreferAnInterfaceOfThatVeryName(@TempDir final Path sysClassNet) throws IOException
    {
        Files.createDirectory(sysClassNet.resolve("rnic_te1"));
        assertEquals("rnic_te1", Ports.interfaceOf("rnic_te1", sysClassNet));
    }

    @Test
    void shouldTakePortOneTheOnlyOne()
    {
        assertEquals(1, Ports.ibPort("-i", "1"));
        assertEquals("-i 2: the device has one port, 1 (as rxe's): give -i 1 or leave it out",
            assertThrows(UsageException.class, () -> Ports.ibPort("-i", "2")).getMessage());
        assertEquals("--ib-port takes a whole number, not 'one'",
            assertThrows(UsageException.class, () -> Ports.ibPort("--ib-port", "one")).getMessage());
    }
}
