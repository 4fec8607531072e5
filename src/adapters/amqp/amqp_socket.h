#pragma once

// The socket of an AmqpConnection: TCP, or TLS with the broker's certificate checked by OpenSSL
// during the handshake (against the CA file, or the system's trust store) and its name against
// the host (a DNS name or an IP address, RFC 6125).

#include <amqp.h>
#include <sys/time.h>

#include <string>

#include "adapters/amqp/amqp_connection.h"

namespace docgate {

// Opens a socket of `state` to `endpoint` within `timeout`. Throws AmqpError naming `where` and
// why (for TLS, OpenSSL's reasons and the certificate's verify error), also when the trust store
// or the CA file cannot be loaded.
void OpenSocket(amqp_connection_state_t state, const AmqpEndpoint& endpoint,
                const std::string& ca_file, const timeval& timeout, const std::string& where);

}  // namespace docgate
