// tb_rand.svh - the benches' deterministic random numbers: xorshift32, the
// same sequence under any simulator, one stream per bench and seed.
// Included inside a bench module that has the parameter Seed and, before
// the include, localparam logic [31:0] RandSalt (the bench's own stream).
  int unsigned rstate = 32'(Seed) * 32'd2654435761 ^ RandSalt;
  function automatic int unsigned rnd();
    rstate ^= rstate << 13; rstate ^= rstate >> 17; rstate ^= rstate << 5;
    return rstate;
  endfunction
  function automatic int unsigned rn(input int unsigned n);
    return rnd() % n;
  endfunction
