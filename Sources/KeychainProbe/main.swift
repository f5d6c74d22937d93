print("KeychainProbe: being built")
