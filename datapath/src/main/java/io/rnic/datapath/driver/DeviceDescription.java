package io.rnic.datapath.driver;

import io.rnic.transport.LocalPort;

import java.util.List;
import java.util.Map;

/** PLACEHOLDER until the devinfo branch lands (replaced by its DeviceDescription). */
final class DeviceDescription
{
    private DeviceDescription()
    {
    }

    static final String PORT_KIND_AFPACKET = "afpacket";
    static final String PORT_KIND_DPDK = "dpdk";

    static List<Map.Entry<String, String>> of(final String portName, final String portKind, final LocalPort port)
    {
        return List.of(Map.entry("hca_id", "rnic_" + portName));
    }
}
