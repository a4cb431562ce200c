package io.rnic.datapath.driver;

import io.rnic.shm.SharedMemory;
import io.rnic.verbs.CompletionQueue;

/** A client's CQ as the driver holds it: the engine completes into the ring in the client's shared file. */
record ClientCq(int handle, CompletionQueue cq, SharedMemory memory)
{
}
