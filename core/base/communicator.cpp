#include "core/base/communicator.h"

namespace svi {

Communicator& localCommunicator()
{
    static Communicator local;
    return local;
}

} // namespace svi
