/* ctorch/shm.h -- storages in shared memory, for other processes to map.
 *
 * Two kinds of segment, as torch.multiprocessing's sharing strategies:
 *   CT_SHM_FD    an anonymous memfd; another process gets a duplicate of
 *                its descriptor (over a Unix socket or at spawn) and maps
 *                it.  Nothing appears in /dev/shm; the pages go when the
 *                last mapping and descriptor close, even if a process dies.
 *   CT_SHM_NAME  a named POSIX segment "/ctorch_<pid>_<n>" opened by name.
 *                A count of the processes that map it lives in the
 *                segment's first 64 bytes; the last one unlinks the name.
 *                ct_shm_cleanup() unlinks the names of dead creators (a
 *                killed process cannot decrement) and, at exit, the
 *                caller's own.
 * Sharing moves a storage in place: its bytes are copied into the segment
 * and every tensor over it sees the new pages.  A shared storage cannot be
 * resized.  Segments received twice (or sent back to their creator) map
 * to the one storage, so tensors that shared a storage keep sharing it.
 */
#ifndef CTORCH_SHM_H
#define CTORCH_SHM_H

#include <stddef.h>

#include "storage.h"

typedef enum { CT_SHM_FD = 0, CT_SHM_NAME = 1 } ct_shm_kind;

/* Move s into a segment of that kind (no-op if it is in one).  0 or -1. */
int ct_storage_share(ct_storage *s, ct_shm_kind kind);
/* A new storage of nbytes (uninitialised; fresh pages read as zero) in a
 * new segment: what a DataLoader worker collates a batch into. */
ct_storage *ct_storage_new_shared(size_t nbytes, ct_shm_kind kind);
/* The handle of a shared storage: its descriptor (CT_SHM_FD; still owned
 * by the storage) or -1; its name (CT_SHM_NAME) or NULL. */
int ct_storage_shm_fd(const ct_storage *s);
const char *ct_storage_shm_name(const ct_storage *s);
/* A storage over a segment from another process: a new reference.  fd is
 * borrowed (the storage keeps a duplicate). */
ct_storage *ct_storage_from_shm_fd(int fd, size_t nbytes);
ct_storage *ct_storage_from_shm_name(const char *name, size_t nbytes);
/* A named segment in flight: the sender counts the receiver in before the
 * name leaves (so the segment outlives the sender's own reference), and
 * ct_storage_from_shm_name takes that count over. */
int ct_storage_shm_incref(ct_storage *s);
/* Unlink the segment names of creators that are no longer running, and
 * also this process's own when at_exit is set.  Returns how many. */
int ct_shm_cleanup(int at_exit);
/* Segments this process has mapped now (for leak tests). */
long ct_shm_live_segments(void);

#endif
