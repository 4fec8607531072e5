#include "adapters/amqp/amqp_socket.h"

#include <amqp_ssl_socket.h>
#include <amqp_tcp_socket.h>
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "adapters/amqp/amqp_connection.h"

namespace docgate {
namespace {

// Keeps the first reason a certificate was refused in the int the SSL_CTX's app data points to.
int RecordVerifyError(int preverified, X509_STORE_CTX* store) {
  if (preverified == 1) return 1;
  const auto* ssl = static_cast<const SSL*>(
      X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* error = static_cast<int*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  if (error != nullptr && *error == X509_V_OK) *error = X509_STORE_CTX_get_error(store);
  return 0;
}

// What OpenSSL has to say about the last failures of this thread (certificate verify failed, ...).
std::string TlsReasons() {
  std::string reasons;
  while (const unsigned long code = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(code);
    if (reason == nullptr) continue;
    reasons += reasons.empty() ? "" : "; ";
    reasons += reason;
  }
  return reasons;
}

// Sets up `socket` to verify the broker at `host`; `verify_error` receives why the server's
// certificate was refused, if it is.
void ConfigureTls(amqp_socket_t* socket, const std::string& host, const std::string& ca_file,
                  int* verify_error) {
  // rabbitmq-c checks the peer only after the handshake, and its host name check knows DNS names
  // only. OpenSSL's own checks, set up here, fail the handshake itself, and match the host against
  // DNS names and IP addresses alike (RFC 6125); rabbitmq-c's stay on for the peer as a second
  // look, off for the host name.
  amqp_ssl_socket_set_verify_peer(socket, 1);
  amqp_ssl_socket_set_verify_hostname(socket, 0);
  auto* context = static_cast<SSL_CTX*>(amqp_ssl_socket_get_context(socket));
  SSL_CTX_set_app_data(context, verify_error);
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, RecordVerifyError);
  if (ca_file.empty()) {
    if (SSL_CTX_set_default_verify_paths(context) != 1) {
      throw AmqpError("cannot load the system's trust store: " + TlsReasons());
    }
  } else if (amqp_ssl_socket_set_cacert(socket, ca_file.c_str()) != AMQP_STATUS_OK) {
    throw AmqpError("cannot load the CA certificates " + ca_file + ": " + TlsReasons());
  }
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(context);
  unsigned char address[sizeof(in6_addr)];
  const bool is_ip = inet_pton(AF_INET, host.c_str(), address) == 1 ||
                     inet_pton(AF_INET6, host.c_str(), address) == 1;
  const int set = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                        : X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
  if (set != 1) throw AmqpError("cannot set the TLS host name check for " + host);
}

}  // namespace

void OpenSocket(amqp_connection_state_t state, const AmqpEndpoint& endpoint,
                const std::string& ca_file, const timeval& timeout, const std::string& where) {
  amqp_socket_t* socket = endpoint.tls ? amqp_ssl_socket_new(state) : amqp_tcp_socket_new(state);
  if (socket == nullptr) throw AmqpError("cannot create a socket for " + where);
  int verify_error = X509_V_OK;
  if (endpoint.tls) ConfigureTls(socket, endpoint.host, ca_file, &verify_error);

  ERR_clear_error();
  const int opened =
      amqp_socket_open_noblock(socket, endpoint.host.c_str(), endpoint.port, &timeout);
  if (endpoint.tls) {  // verify_error lives only this long
    SSL_CTX_set_app_data(static_cast<SSL_CTX*>(amqp_ssl_socket_get_context(socket)), nullptr);
  }
  if (opened != AMQP_STATUS_OK) {
    std::string why = amqp_error_string2(opened);
    if (endpoint.tls) {
      std::string reasons = TlsReasons();
      if (verify_error != X509_V_OK) {
        reasons +=
            std::string(reasons.empty() ? "" : ": ") + X509_verify_cert_error_string(verify_error);
      }
      if (!reasons.empty()) why += " (" + reasons + ")";
    }
    throw AmqpError((endpoint.tls ? "TLS connection to " : "connection to ") + where +
                    " failed: " + why);
  }
}

}  // namespace docgate
