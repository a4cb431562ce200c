/**
 * Memory that one process allocates and another maps, through the FFM API: {@link io.rnic.shm.SharedMemory} creates
 * a sealed memfd, or takes one from another process by pid and descriptor and checks it before mapping it, so that
 * the process which maps it (the driver) can never take SIGBUS because the owner (a client) shrank it.
 * {@code LinuxMemfd} declares the libc calls in one place. It depends on no other rnic package.
 */
package io.rnic.shm;
