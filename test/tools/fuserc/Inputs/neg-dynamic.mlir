func.func @dynamic(%x: tensor<?xi8>) -> tensor<?xi8> {
  %0 = fuser.neg %x : tensor<?xi8>
  return %0 : tensor<?xi8>
}
