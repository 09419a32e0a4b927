/* csrc/distributed/pg_mpi_none.c -- the "mpi" backend in a build without
 * MPI.  Weak definitions: when the Makefile finds OpenMPI it adds
 * csrc/distributed/mpi/, whose real ones take their place at link time.
 */
#include "pg_impl.h"

__attribute__((weak)) bool
ct_mpi_available(void)
{
    return false;
}

__attribute__((weak)) ct_pg *
ct_pg_mpi_new(const int *ranks, int nranks, int64_t timeout_ms, bool *member)
{
    (void)ranks, (void)nranks, (void)timeout_ms;
    *member = false;
    ct_error(CT_ERR_RUNTIME, "Distributed package doesn't have MPI built in. MPI is only "
                             "included if you build PyTorch from source on a host that has "
                             "MPI installed.");
    return NULL;
}
